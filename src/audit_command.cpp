#include "audit_command.hpp"

#include <functional>
#include <ostream>
#include <string_view>

#include "audit.hpp"
#include "discover.hpp"
#include "exit_codes.hpp"
#include "platform/files.hpp"
#include "platform/host.hpp"
#include "platform/liveness.hpp"
#include "platform/observe.hpp"
#include "report_json.hpp"
#include "report_text.hpp"

namespace hsperfguard {
namespace {

// The profile, then the policy file on top of it. Returns an error message on failure.
std::optional<std::string> load_policy(const AuditCommandOptions& options, Policy& policy) {
  auto profile = builtin_profile(options.profile);
  if (!profile) return "unknown profile '" + options.profile + "'";
  policy = *profile;
  if (!options.policy_file) return std::nullopt;
  ObservationError error;
  const auto text = platform::read_config_file(*options.policy_file, &error);
  if (!text) return *options.policy_file + ": " + error.message;
  const auto document = nlohmann::json::parse(*text, nullptr, false);
  if (document.is_discarded()) return *options.policy_file + ": not valid JSON";
  if (auto problem = apply_policy(policy, document)) return *options.policy_file + ": " + *problem;
  return std::nullopt;
}

std::optional<ObservationError> write_report_file(
    const std::string& path, const std::function<void(const platform::ContentSink&)>& render) {
#ifdef _WIN32
  // No streaming atomic writer on Windows yet: the report is rendered whole, then written.
  std::string content;
  render([&](std::string_view piece) { content.append(piece); });
  return platform::write_file_atomically(path, content);
#else
  return platform::write_file_atomically_streamed(path, render);
#endif
}

}  // namespace

int run_audit_command(const AuditCommandOptions& options, std::ostream& out, std::ostream& err) {
  AuditResult result;
  if (auto problem = load_policy(options, result.policy)) {
    err << "hsperfguard: audit: " << *problem << "\n";
    return kExitUsage;
  }
  result.started_at_ms = platform::now_epoch_ms();
  DiscoverOptions discover;
  discover.tmpdir = options.tmpdir;
  discover.root = options.root;
  discover.host_temp_dir = platform::default_temp_dir();
  platform::LivenessGatherer liveness;
  for (const auto& spec : discover_roots(discover)) {
    result.roots.push_back(platform::observe_temp_root(spec, platform::ObserveOptions{}));
    // A temp dir that could not be opened leaves nothing judged beneath it.
    if (!result.roots.back().opened) result.incomplete = true;
    liveness.gather(result.roots.back());
  }
  result.judgements = judge(result.roots, result.policy);
  result.finished_at_ms = platform::now_epoch_ms();

  ReportContext context;
  context.host = platform::observe_host();
  context.fail_on = options.fail_on;
  const ReportFormat format =
      options.format.value_or(platform::stdout_is_terminal() && !options.output ? ReportFormat::text
                                                                               : ReportFormat::json);
  // The JSON report is streamed: it is the largest thing the audit makes (a few KiB a file).
  const auto render = [&](const platform::ContentSink& write) {
    if (format == ReportFormat::json) {
      write_audit_report_json(result, context, write);
    } else {
      write(audit_report_text(result, context));
    }
  };
  if (options.output) {
    if (auto error = write_report_file(*options.output, render)) {
      err << "hsperfguard: audit: cannot write " << *options.output << ": " << error->op << ": "
          << error->message << "\n";
      return kExitIncomplete;
    }
  } else {
    render([&](std::string_view piece) {
      out.write(piece.data(), static_cast<std::streamsize>(piece.size()));
    });
    out.flush();
  }
  if (result.incomplete) {
    for (const auto& root : result.roots) {
      for (const auto& e : root.errors) {
        err << "hsperfguard: audit: " << e.path << ": " << e.op << ": " << e.message << "\n";
      }
    }
    return kExitIncomplete;
  }
  const auto worst = highest_severity(result);
  return worst && *worst >= options.fail_on ? kExitFindings : kExitOk;
}

}  // namespace hsperfguard
