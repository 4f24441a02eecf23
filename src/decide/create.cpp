#include "decide/create.hpp"

#include "decide/audit.hpp"
#include "model/perfdata.hpp"

namespace hsperfguard {

std::optional<std::string> check_user_name(std::string_view user) {
  if (user.empty()) return std::string("the user name is empty");
  if (user == "." || user == "..") return std::string("the user name cannot be . or ..");
  if (user.find('/') != std::string_view::npos) return std::string("the user name contains '/'");
  if (user.find('\0') != std::string_view::npos) return std::string("the user name contains NUL");
  if (user.size() + kNamespacePrefix.size() > 255) return std::string("the user name is too long");
  return std::nullopt;
}

std::string namespace_name_for(std::string_view user) {
  std::string name(kNamespacePrefix);
  name.append(user);
  return name;
}

std::optional<std::uint32_t> parse_namespace_mode(std::string_view text) {
  if (text == "0755" || text == "755") return 0755;
  if (text == "0700" || text == "700") return 0700;
  return std::nullopt;
}

std::uint32_t bits_create_clears(std::uint32_t requested_mode) { return 0777U & ~requested_mode; }

PlannedRegion plan_region(const RegionRequest& request, std::size_t page_size) {
  PlannedRegion out;
  const std::size_t wanted = request.size.value_or(perfdata::kDefaultRegionSize);
  if (wanted < perfdata::kMinRegionSize || wanted > perfdata::kMaxRegionSize) {
    out.error = "region size " + std::to_string(wanted) + " is outside [" +
                std::to_string(perfdata::kMinRegionSize) + ", " +
                std::to_string(perfdata::kMaxRegionSize) + "] bytes";
    return out;
  }
  const auto size = perfdata::round_up_to_page(wanted, page_size);
  if (!size || *size > perfdata::kMaxRegionSize) {
    out.error = "region size " + std::to_string(wanted) + " rounded up to the " +
                std::to_string(page_size) + "-byte page exceeds " +
                std::to_string(perfdata::kMaxRegionSize) + " bytes";
    return out;
  }
  perfdata::RegionSpec spec;
  spec.size = *size;
  spec.byte_order = perfdata::host_byte_order();
  spec.accessible = 1;
  spec.entries = perfdata::standard_entries(
      perfdata::StandardCounters{request.begin_time_ms, request.command, 1'000'000'000});
  auto built = perfdata::build_region(spec);
  if (built.error) {
    out.error = "cannot build the region: " + built.error->reason;
    return out;
  }
  out.bytes = std::move(built.bytes);
  return out;
}

std::optional<std::size_t> find_namespace(const TempRootFacts& root, std::string_view name) {
  for (std::size_t i = 0; i < root.namespaces.size(); ++i) {
    if (root.namespaces[i].name == name) return i;
  }
  return std::nullopt;
}

namespace {

bool is_resource_prediction(std::string_view rule) {
  return rule == "namespace.no-space" || rule == "namespace.read-only" || rule == "namespace.immutable" ||
         rule == "tmpdir.new-namespaces-fail";
}

}  // namespace

CreateAssessment assess_for_create(const TempRootFacts& root, std::optional<std::size_t> namespace_index,
                                   const Policy& policy, Severity threshold) {
  // Judge the temp dir and this one namespace only: other users' namespaces are not ours.
  TempRootFacts one = root;
  one.namespaces.clear();
  one.attach_files.clear();
  if (namespace_index && *namespace_index < root.namespaces.size()) {
    one.namespaces.push_back(root.namespaces[*namespace_index]);
  }
  const std::vector<TempRootFacts> roots{std::move(one)};
  const auto judgements = judge(roots, policy);
  CreateAssessment out;
  out.repair = plan_repair(roots, judgements);
  // The prediction says whether a JVM would manage to create its file; create finds that out
  // for itself (and reports the file system's own error), so the prediction only informs it.
  const auto blocks = [&](const Finding& f) { return f.severity >= threshold && !is_resource_prediction(f.rule); };
  const RootJudgement& rj = judgements.front();
  for (const auto& f : rj.findings) {
    (blocks(f) ? out.blocking_temp_dir : out.notes).push_back(f);
  }
  for (const auto& ns : rj.namespaces) {
    for (const auto& f : ns.findings) (blocks(f) ? out.blocking : out.notes).push_back(f);
    for (const auto& file : ns.files) {
      for (const auto& f : file.findings) (f.severity >= threshold ? out.blocking : out.notes).push_back(f);
    }
  }
  return out;
}

std::string repair_advice(const RepairPlan& plan, const Finding& finding) {
  for (const auto& item : plan.items) {
    if (item.rule != finding.rule || item.path != finding.path) continue;
    if (item.disposition == RepairDisposition::fix) {
      return "`hsperfguard repair` fixes it (" + item.change + ")";
    }
    return "`hsperfguard repair` leaves it: " + item.reason + "; manual remedy: " + item.remediation;
  }
  return "manual remedy: " + finding.remediation;
}

}  // namespace hsperfguard
