// Boxed<T>: an optional value kept out of line. It reads like std::optional<T> (has_value,
// operator bool, *, ->, emplace, reset, assignment from T, std::nullopt or std::optional<T>)
// and copies deeply, but costs one pointer where it is empty. For the large members of
// FileFacts that most files never have (a region when the reaper reads none, a Windows
// descriptor on Linux): at 100,000 files each such member would otherwise be memory
// zeroed and paged in for nothing.
#pragma once

#include <memory>
#include <optional>
#include <utility>

namespace hsperfguard {

template <typename T>
class Boxed {
 public:
  Boxed() = default;
  Boxed(std::nullopt_t) {}  // NOLINT(google-explicit-constructor): reads like optional
  Boxed(const T& value) : p_(std::make_unique<T>(value)) {}  // NOLINT
  Boxed(T&& value) : p_(std::make_unique<T>(std::move(value))) {}  // NOLINT
  Boxed(const std::optional<T>& value) : p_(value ? std::make_unique<T>(*value) : nullptr) {}  // NOLINT
  Boxed(std::optional<T>&& value)  // NOLINT
      : p_(value ? std::make_unique<T>(std::move(*value)) : nullptr) {}
  Boxed(const Boxed& other) : p_(other.p_ ? std::make_unique<T>(*other.p_) : nullptr) {}
  Boxed(Boxed&&) noexcept = default;
  ~Boxed() = default;

  Boxed& operator=(const Boxed& other) {
    if (this != &other) p_ = other.p_ ? std::make_unique<T>(*other.p_) : nullptr;
    return *this;
  }
  Boxed& operator=(Boxed&&) noexcept = default;
  Boxed& operator=(std::nullopt_t) {
    p_.reset();
    return *this;
  }
  Boxed& operator=(const T& value) { return *this = Boxed(value); }
  Boxed& operator=(T&& value) { return *this = Boxed(std::move(value)); }
  Boxed& operator=(const std::optional<T>& value) { return *this = Boxed(value); }
  Boxed& operator=(std::optional<T>&& value) { return *this = Boxed(std::move(value)); }

  bool has_value() const { return p_ != nullptr; }
  explicit operator bool() const { return has_value(); }
  T& operator*() { return *p_; }
  const T& operator*() const { return *p_; }
  T* operator->() { return p_.get(); }
  const T* operator->() const { return p_.get(); }
  T& value() {
    if (!p_) throw std::bad_optional_access();
    return *p_;
  }
  const T& value() const {
    if (!p_) throw std::bad_optional_access();
    return *p_;
  }
  template <typename... Args>
  T& emplace(Args&&... args) {
    p_ = std::make_unique<T>(std::forward<Args>(args)...);
    return *p_;
  }
  void reset() { p_.reset(); }

 private:
  std::unique_ptr<T> p_;
};

}  // namespace hsperfguard
