#include "platform/windows/security_windows.hpp"

#include <aclapi.h>
#include <sddl.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "platform/windows/win_util.hpp"

namespace hsperfguard::platform::win {

namespace {

// Where the SID of an ACE starts: right after the mask for the plain ACE layouts, after
// the optional object-type GUIDs for the object ACEs. nullptr when the ACE is too short.
PSID ace_sid(const ACE_HEADER* header) {
  const auto* bytes = reinterpret_cast<const std::byte*>(header);
  std::size_t offset = sizeof(ACE_HEADER) + sizeof(ACCESS_MASK);
  switch (header->AceType) {
    case ACCESS_ALLOWED_OBJECT_ACE_TYPE:
    case ACCESS_DENIED_OBJECT_ACE_TYPE:
    case SYSTEM_AUDIT_OBJECT_ACE_TYPE:
    case SYSTEM_ALARM_OBJECT_ACE_TYPE:
    case ACCESS_ALLOWED_CALLBACK_OBJECT_ACE_TYPE:
    case ACCESS_DENIED_CALLBACK_OBJECT_ACE_TYPE:
    case SYSTEM_AUDIT_CALLBACK_OBJECT_ACE_TYPE:
    case SYSTEM_ALARM_CALLBACK_OBJECT_ACE_TYPE: {
      if (header->AceSize < offset + sizeof(DWORD)) return nullptr;
      DWORD flags = 0;
      std::memcpy(&flags, bytes + offset, sizeof flags);
      offset += sizeof(DWORD);
      if ((flags & ACE_OBJECT_TYPE_PRESENT) != 0) offset += sizeof(GUID);
      if ((flags & ACE_INHERITED_OBJECT_TYPE_PRESENT) != 0) offset += sizeof(GUID);
      break;
    }
    default:
      break;
  }
  // A SID is at least 8 bytes (revision, count, authority); IsValidSid checks the rest.
  if (header->AceSize < offset + 8) return nullptr;
  auto* sid = const_cast<std::byte*>(bytes + offset);
  const auto* sid_bytes = reinterpret_cast<const unsigned char*>(sid);
  const std::size_t sid_length = 8 + 4 * static_cast<std::size_t>(sid_bytes[1]);
  if (header->AceSize < offset + sid_length || !::IsValidSid(sid)) return nullptr;
  return sid;
}

Ace to_ace(const ACE_HEADER* header) {
  Ace ace;
  switch (header->AceType) {
    case ACCESS_ALLOWED_ACE_TYPE:
      ace.type = AceType::access_allowed;
      break;
    case ACCESS_DENIED_ACE_TYPE:
      ace.type = AceType::access_denied;
      break;
    default:
      // Object, callback, audit and label ACEs: kept (with their mask and SID) so that a
      // report shows them, but the neutral evaluator does not grant or deny through them.
      ace.type = AceType::other;
      break;
  }
  ace.flags = header->AceFlags;
  if (header->AceSize >= sizeof(ACE_HEADER) + sizeof(ACCESS_MASK)) {
    std::memcpy(&ace.mask, reinterpret_cast<const std::byte*>(header) + sizeof(ACE_HEADER),
                sizeof(ACCESS_MASK));
  }
  if (PSID sid = ace_sid(header)) ace.sid = sid_to_string(sid).value_or("");
  return ace;
}

}  // namespace

std::optional<std::string> sid_to_string(PSID sid) {
  if (sid == nullptr || !::IsValidSid(sid)) return std::nullopt;
  LocalPtr<wchar_t*> text;
  if (!::ConvertSidToStringSidW(sid, text.out())) return std::nullopt;
  return narrow(text.get());
}

SecurityDescriptor to_security_descriptor(PSECURITY_DESCRIPTOR descriptor) {
  SecurityDescriptor out;
  SECURITY_DESCRIPTOR_CONTROL control = 0;
  DWORD revision = 0;
  if (::GetSecurityDescriptorControl(descriptor, &control, &revision)) out.control = control;

  PSID owner = nullptr;
  BOOL owner_defaulted = FALSE;
  if (::GetSecurityDescriptorOwner(descriptor, &owner, &owner_defaulted) && owner != nullptr) {
    out.owner_sid = sid_to_string(owner);
  }

  BOOL present = FALSE;
  BOOL dacl_defaulted = FALSE;
  PACL dacl = nullptr;
  if (!::GetSecurityDescriptorDacl(descriptor, &present, &dacl, &dacl_defaulted)) return out;
  // A present but NULL DACL grants everyone everything, exactly like no DACL at all.
  out.dacl_present = present && dacl != nullptr;
  if (!out.dacl_present) return out;

  ACL_SIZE_INFORMATION size{};
  if (!::GetAclInformation(dacl, &size, sizeof size, AclSizeInformation)) return out;
  for (DWORD i = 0; i < size.AceCount; ++i) {
    void* raw = nullptr;
    if (!::GetAce(dacl, i, &raw) || raw == nullptr) continue;
    out.dacl.push_back(to_ace(static_cast<const ACE_HEADER*>(raw)));
  }
  return out;
}

std::optional<SecurityDescriptor> read_security(HANDLE handle, const std::string& path,
                                                ObservationError* error) {
  PSID owner = nullptr;
  PACL dacl = nullptr;
  LocalPtr<PSECURITY_DESCRIPTOR> descriptor;
  const DWORD rc = ::GetSecurityInfo(handle, SE_FILE_OBJECT,
                                     OWNER_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION,
                                     &owner, nullptr, &dacl, nullptr, descriptor.out());
  if (rc != ERROR_SUCCESS) {
    if (error != nullptr) *error = make_error(path, "GetSecurityInfo", rc);
    return std::nullopt;
  }
  return to_security_descriptor(descriptor.get());
}

std::optional<SecurityDescriptor> read_named_security(const std::string& path,
                                                      ObservationError* error) {
  PSID owner = nullptr;
  PACL dacl = nullptr;
  LocalPtr<PSECURITY_DESCRIPTOR> descriptor;
  const std::wstring wide = widen(path);
  const DWORD rc = ::GetNamedSecurityInfoW(wide.c_str(), SE_FILE_OBJECT,
                                           OWNER_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION,
                                           &owner, nullptr, &dacl, nullptr, descriptor.out());
  if (rc != ERROR_SUCCESS) {
    if (error != nullptr) *error = make_error(path, "GetNamedSecurityInfoW", rc);
    return std::nullopt;
  }
  return to_security_descriptor(descriptor.get());
}

SddlResult security_from_sddl(std::string_view sddl) {
  SddlResult result;
  LocalPtr<PSECURITY_DESCRIPTOR> descriptor;
  const std::wstring wide = widen(sddl);
  if (!::ConvertStringSecurityDescriptorToSecurityDescriptorW(wide.c_str(), SDDL_REVISION_1,
                                                              descriptor.out(), nullptr)) {
    result.error = make_error(std::string(sddl), "ConvertStringSecurityDescriptorToSecurityDescriptorW",
                              ::GetLastError());
    return result;
  }
  result.descriptor = to_security_descriptor(descriptor.get());
  return result;
}

AccountLookup lookup_account(std::string_view name) {
  AccountLookup result;
  const std::wstring wide = widen(name);
  DWORD sid_size = 0;
  DWORD domain_size = 0;
  SID_NAME_USE use = SidTypeUnknown;
  // First call sizes the buffers; a name can be long and a SID up to SECURITY_MAX_SID_SIZE.
  ::LookupAccountNameW(nullptr, wide.c_str(), nullptr, &sid_size, nullptr, &domain_size, &use);
  DWORD rc = ::GetLastError();
  if (rc == ERROR_INSUFFICIENT_BUFFER) {
    std::vector<std::byte> sid(sid_size);
    std::wstring domain(domain_size, L'\0');
    if (::LookupAccountNameW(nullptr, wide.c_str(), sid.data(), &sid_size, domain.data(),
                             &domain_size, &use)) {
      domain.resize(domain_size);
      if (use == SidTypeUser) {
        result.found = true;
        result.sid = sid_to_string(sid.data());
        result.domain = narrow(domain);
      }
      return result;
    }
    rc = ::GetLastError();
  }
  if (rc != ERROR_NONE_MAPPED) result.error = make_error(std::string(name), "LookupAccountNameW", rc);
  return result;
}

std::optional<std::string> process_user_sid(HANDLE process, ObservationError* error) {
  HANDLE raw = nullptr;
  if (!::OpenProcessToken(process, TOKEN_QUERY, &raw)) {
    if (error != nullptr) *error = make_error("process token", "OpenProcessToken", ::GetLastError());
    return std::nullopt;
  }
  const UniqueHandle token(raw);
  DWORD size = 0;
  ::GetTokenInformation(token.get(), TokenUser, nullptr, 0, &size);
  // TOKEN_USER holds pointers: the buffer must be aligned for them.
  std::vector<std::uint64_t> buffer((size + sizeof(std::uint64_t) - 1) / sizeof(std::uint64_t) + 1);
  if (!::GetTokenInformation(token.get(), TokenUser, buffer.data(),
                             static_cast<DWORD>(buffer.size() * sizeof(std::uint64_t)), &size)) {
    if (error != nullptr) *error = make_error("process token", "GetTokenInformation", ::GetLastError());
    return std::nullopt;
  }
  auto sid = sid_to_string(reinterpret_cast<TOKEN_USER*>(buffer.data())->User.Sid);
  if (!sid && error != nullptr) *error = ObservationError{"process token", "ConvertSidToStringSidW", 0, "invalid SID"};
  return sid;
}

std::optional<std::string> current_user_sid(ObservationError* error) {
  return process_user_sid(::GetCurrentProcess(), error);
}

std::optional<std::string> account_name(std::string_view sid) {
  LocalPtr<PSID> binary;
  if (!::ConvertStringSidToSidW(widen(sid).c_str(), binary.out())) return std::nullopt;
  wchar_t name[256];
  wchar_t domain[256];
  DWORD name_size = 256;
  DWORD domain_size = 256;
  SID_NAME_USE use{};
  if (!::LookupAccountSidW(nullptr, binary.get(), name, &name_size, domain, &domain_size, &use)) {
    return std::nullopt;
  }
  return narrow(std::wstring_view(name, name_size));
}

std::optional<std::string> to_sddl(const SecurityDescriptor& descriptor) {
  if (!descriptor.dacl_present) return std::nullopt;
  std::string sddl;
  if (descriptor.owner_sid) sddl += "O:" + *descriptor.owner_sid;
  sddl += "D:";
  if ((descriptor.control & SE_DACL_PROTECTED) != 0) sddl += "P";
  if ((descriptor.control & SE_DACL_AUTO_INHERITED) != 0) sddl += "AI";
  for (const Ace& ace : descriptor.dacl) {
    if (ace.type == AceType::other) return std::nullopt;
    std::string flags;
    if ((ace.flags & OBJECT_INHERIT_ACE) != 0) flags += "OI";
    if ((ace.flags & CONTAINER_INHERIT_ACE) != 0) flags += "CI";
    if ((ace.flags & NO_PROPAGATE_INHERIT_ACE) != 0) flags += "NP";
    if ((ace.flags & INHERIT_ONLY_ACE) != 0) flags += "IO";
    if ((ace.flags & INHERITED_ACE) != 0) flags += "ID";
    char mask[16];
    std::snprintf(mask, sizeof mask, "0x%08lx", static_cast<unsigned long>(ace.mask));
    sddl += std::string("(") + (ace.type == AceType::access_allowed ? "A" : "D") + ";" + flags +
            ";" + mask + ";;;" + ace.sid + ")";
  }
  return sddl;
}

std::string creation_sddl(CreatedObject object, std::string_view owner_sid, std::string_view user_sid,
                          bool everyone_may_list) {
  // Always expressible: a present DACL of allow ACEs without flags.
  return *to_sddl(compliant_descriptor(object, std::string(owner_sid), std::string(user_sid),
                                       everyone_may_list));
}

}  // namespace hsperfguard::platform::win
