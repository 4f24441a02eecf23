#include "report/audit_report_json.hpp"

#include <array>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <utility>

#include "checks/publication.hpp"
#include "model/compact_json.hpp"
#include "model/prologue_json.hpp"
#include "model/text_escape.hpp"
#include "report/finding_json.hpp"
#include "report/perfdata_json.hpp"
#include "version.hpp"

namespace hsperfguard {

using nlohmann::json;

namespace {

json error_json(const ObservationError& e) {
  json j;
  put_text(j, "path", e.path);
  j["op"] = e.op;
  j["code"] = e.code;
  j["message"] = escape_non_utf8(e.message);
  return j;
}

json errors_json(const std::vector<ObservationError>& errors, json& all) {
  json out = json::array();
  for (const auto& e : errors) {
    out.push_back(error_json(e));
    all.push_back(out.back());
  }
  return out;
}

json inode_json(const InodeFacts* inode) {
  if (inode == nullptr) return nullptr;
  return {{"kind", to_string(inode->kind)}, {"mode", octal_mode(inode->mode)},
          {"uid", inode->uid},             {"gid", inode->gid},
          {"nlink", inode->nlink},         {"size", inode->size},
          {"dev", inode->dev},             {"ino", inode->ino},
          {"mtime", format_utc_millis(inode->mtime.millis())}};
}

json volume_json(const std::optional<VolumeFacts>& v) {
  if (!v) return nullptr;
  json j = {{"fs_type", v->fs_type}, {"network", v->network}};
  j["acl_support"] = v->acl_support ? json(*v->acl_support) : json(nullptr);
  j["compressed"] = v->compressed ? json(*v->compressed) : json(nullptr);
  j["read_only"] = v->read_only ? json(*v->read_only) : json(nullptr);
  if (!v->read_only_seen_by.empty()) {
    j["read_only_seen_by"] = v->read_only_seen_by;
    if (v->read_only_to_observer) j["read_only_to_observer"] = *v->read_only_to_observer;
    if (!v->read_only_view_error.empty()) j["read_only_view_error"] = escape_non_utf8(v->read_only_view_error);
  }
  j["free_bytes"] = v->free_bytes ? json(*v->free_bytes) : json(nullptr);
  j["free_inodes"] = v->free_inodes ? json(*v->free_inodes) : json(nullptr);
  return j;
}

}  // namespace

json error_to_json(const ObservationError& error) { return error_json(error); }

json inode_to_json(const std::optional<InodeFacts>& inode) { return inode_json(inode ? &*inode : nullptr); }

namespace {

// The members known when an audit starts; a streamed report writes them first.
json report_opening_json(const ReportContext& context, const std::string& profile,
                         std::int64_t started_at_ms, const ReportRules& rules) {
  json report;
  report["schema"] = kReportSchema;
  report["tool"] = {{"name", "hsperfguard"}, {"version", kVersion}, {"build", kBuildInfo}};
  report["host"] = {{"name", escape_non_utf8(context.host.name)},
                    {"os", context.host.os},
                    {"kernel", escape_non_utf8(context.host.kernel)},
                    {"euid", context.host.euid}};
  report["command"] = context.command;
  report["profile"] = profile;
  if (context.policy_file) report["policy_file"] = escape_non_utf8(*context.policy_file);
  report["fail_on"] = to_string(context.fail_on);
  report["started_at"] = format_utc_millis(started_at_ms);
  // What every finding of a rule shares, stated once, before the findings (as SARIF's
  // tool.driver.rules): a finding names its rule by id and by index in this list.
  report["rules"] = rules.to_json();
  return report;
}

json prediction_json(const checks::PublicationPrediction& p) {
  json out;
  out["publishes"] = p.publishes ? json(*p.publishes) : json(nullptr);
  out["causes"] = checks::causes(p);
  out["region_bytes_assumed"] = p.region_bytes;
  json locked = json::array();
  for (const auto& name : p.locked_names) locked.push_back(escape_non_utf8(name));
  out["locked_names"] = std::move(locked);
  return out;
}

json root_json(const TempRootFacts& root, const RootJudgement& rj, FindingContext findings) {
  json jr;
  jr["kind"] = to_string(root.kind);
  if (root.alt_temp_dir_pid) jr["alt_temp_dir_pid"] = *root.alt_temp_dir_pid;
  if (root.account) {
    json account;
    put_text(account, "name", root.account->name);
    account["named_by_pid"] = root.account->jvm_pid ? json(*root.account->jvm_pid) : json(nullptr);
    jr["account"] = std::move(account);
  }
  put_text(jr, "root", root.root);
  put_text(jr, "temp_dir", root.temp_dir);
  jr["inode"] = inode_to_json(root.opened ? root.opened : root.lstat);
  jr["volume"] = volume_json(root.volume);
  // JVMs of users with no namespace here yet: could they make one and publish? Predicted by
  // the judgement (judge_root), when the temp dir was opened.
  if (rj.new_namespace_prediction) {
    jr["new_namespace_prediction"] = prediction_json(*rj.new_namespace_prediction);
  }
  jr["stopped"] = root.stopped ? json(*root.stopped) : json(nullptr);
  if (root.container) {
    jr["container"] = {{"host_pid", root.container->host_pid},
                       {"mount_namespace", root.container->mount_namespace}};
  }
  // What the cleaners rule judged: the configuration files read and the cleanings they
  // configure, whether or not one reaches a JVM's files.
  if (root.cleaners) {
    const cleaners::Configuration& config = root.cleaners->configuration;
    json files = json::array();
    for (const auto& f : config.files) files.push_back(escape_non_utf8(f));
    json cleanings = json::array();
    for (const auto& c : config.cleanings) {
      json paths = json::array();
      for (const auto& p : c.paths) paths.push_back(escape_non_utf8(p));
      cleanings.push_back({{"tool", cleaners::to_string(c.tool)},
                           {"file", escape_non_utf8(c.file)},
                           {"line", c.line},
                           {"age", escape_non_utf8(c.age)},
                           {"paths", std::move(paths)},
                           {"disabled_by", c.disabled ? json(escape_non_utf8(c.disabled_by)) : json(nullptr)}});
    }
    json cleaner_errors_ignored;
    jr["cleaners"] = {{"files", std::move(files)},
                      {"cleanings", std::move(cleanings)},
                      {"not_understood", config.not_understood.size()},
                      {"errors", errors_json(root.cleaners->errors, cleaner_errors_ignored)}};
  }
  findings.subject_path = root.temp_dir;
  jr["findings"] = report_findings_json(rj.findings, findings);
  json ignored;
  jr["errors"] = errors_json(root.errors, ignored);
  return jr;
}

// A namespace without its files ("files" is an empty array, filled by the caller).
json namespace_json(std::size_t r, const NamespaceFacts& ns, const NamespaceJudgement& nj,
                    FindingContext findings) {
  json jn;
  jn["root"] = r;
  put_text(jn, "name", ns.name);
  put_text(jn, "path", ns.path);
  put_text(jn, "user", ns.user_suffix);
  const auto& inode = ns.opened ? ns.opened : ns.lstat;
  jn["kind"] = inode ? json(to_string(inode->kind)) : json(nullptr);
  jn["owner_uid"] = inode ? json(inode->uid) : json(nullptr);
  jn["mode"] = inode ? json(octal_mode(inode->mode)) : json(nullptr);
  jn["expected_uid"] = ns.user && ns.user->uid ? json(*ns.user->uid) : json(nullptr);
  jn["volume"] = volume_json(ns.volume);
  // Whether a JVM of this user started now would publish its counters, and if not why: as the
  // judgement predicted it (judge_namespace).
  jn["prediction"] = prediction_json(nj.prediction);
  findings.subject_path = ns.path;
  jn["findings"] = report_findings_json(nj.findings, findings);
  json ignored;
  jn["errors"] = errors_json(ns.errors, ignored);
  jn["files"] = json::array();
  return jn;
}

// ---- a file's record, written directly (compact_json.hpp) -----------------------------------
// A report of 100,000 files spends most of its time here: each record is written member by
// member, in sorted key order (as a document would hold them), with no document built. It is
// the only rendering of a file: audit_report_json parses what the writer wrote.

void append_errors(std::string& out, const std::vector<ObservationError>& errors) {
  out += '[';
  bool first = true;
  for (const auto& e : errors) {
    if (!first) out += ',';
    first = false;
    CompactObject o(out);
    o.number("code", e.code);
    o.utf8("message", e.message);
    o.string("op", e.op);
    o.text("path", e.path);
  }
  out += ']';
}

void append_inode(std::string& out, const InodeFacts* inode) {
  if (inode == nullptr) {
    out += "null";
    return;
  }
  CompactObject o(out);
  o.number("dev", inode->dev);
  o.number("gid", inode->gid);
  o.number("ino", inode->ino);
  o.string("kind", to_string(inode->kind));
  o.string("mode", octal_mode(inode->mode));
  o.time("mtime", inode->mtime.millis());
  o.number("nlink", inode->nlink);
  o.number("size", inode->size);
  o.number("uid", inode->uid);
}

void append_region_summary(std::string& out, const Boxed<RegionSummary>& summary) {
  if (!summary) {
    out += "null";
    return;
  }
  const auto& r = summary->region;
  CompactObject o(out);
  o.number("bytes_read", summary->bytes_read);
  o.number("entries", r.entry_count);
  if (r.error) {
    CompactObject e(o.key("error"));
    e.number("offset", r.error->offset);
    e.string("reason", r.error->reason);
    e.number("region_size", r.size);
    e.number("walk_end", r.walk_end);
  } else {
    o.null("error");
  }
  if (r.prologue) {
    append_prologue_json(o.key("prologue"), *r.prologue);
  } else {
    o.null("prologue");
  }
  o.boolean("valid", r.valid());
  if (const auto* begin = r.find("sun.rt.createVmBeginTime"); begin && !begin->is_string()) {
    o.time("vm_begin_time", begin->long_value);
  }
}

// Whether `f`'s evidence is exactly what schemas/report-3-to-2.jq rebuilds from the file's
// record: a file.stale or file.pid-reused finding's from the record's verdict (the values that
// settled it, checks/file.cpp), a file.bad-prologue finding's from the record's region. Only
// then is it left out of the finding; any other evidence is written where it is.
bool evidence_stated_in_record(const Finding& f, const FileFacts& file, const FileJudgement& fj) {
  if (f.rule == "file.stale" || f.rule == "file.pid-reused") {
    return fj.verdict && is_verdict_finding_evidence(*fj.verdict, file, f.evidence);
  }
  if (f.rule == "file.bad-prologue") {
    if (!file.region || !file.region->region.error || !f.evidence.is_object() || f.evidence.size() != 7)
      return false;
    const perfdata::Region& r = file.region->region;
    const auto equals = [&](const char* key, const auto& value) {
      const auto it = f.evidence.find(key);
      return it != f.evidence.end() && *it == value;
    };
    const auto prologue = f.evidence.find("prologue");
    return equals("bytes_read", file.region->bytes_read) && equals("entries_decoded", r.entry_count) &&
           equals("offset", r.error->offset) && equals("reason", r.error->reason) &&
           equals("region_size", r.size) && equals("walk_end", r.walk_end) &&
           prologue != f.evidence.end() &&
           (r.prologue ? *prologue == prologue_json(*r.prologue) : prologue->is_null());
  }
  return false;
}

void append_file_record(std::string& out, const FileFacts& file, const FileJudgement& fj,
                        const LivenessSettings& liveness, FindingContext findings) {
  const InodeFacts* fi = file.opened ? &*file.opened : file.lstat ? &*file.lstat : nullptr;
  CompactObject o(out);
  append_errors(o.key("errors"), file.errors);
  findings.subject_path = file.path;
  findings.evidence_in_record = [&](const Finding& f) { return evidence_stated_in_record(f, file, fj); };
  append_report_findings(o.key("findings"), fj.findings, findings);
  append_inode(o.key("inode"), fi);
  if (fi) {
    o.string("kind", to_string(fi->kind));
  } else {
    o.null("kind");
  }
  o.text("name", file.name);
  o.text("path", file.path);
  o.number("pid", file.pid_name.pid);
  o.string("pid_name", to_string(file.pid_name.kind));
  append_region_summary(o.key("region"), file.region);
  if (fj.verdict) {
    CompactObject v(o.key("verdict"));
    const LivenessVerdict verdict =
        explain_liveness(*fj.verdict, file, liveness, v.key("evidence"));
    v.utf8("message", verdict.message);
    v.string("reason", verdict.reason);
    v.string("verdict", to_string(verdict.verdict));
  } else {
    o.null("verdict");
  }
}

json attach_json(std::size_t r, const AttachFacts& af, const Findings& findings, FindingContext context) {
  json ja;
  ja["root"] = r;
  put_text(ja, "path", af.path);
  ja["kind"] = af.kind == AttachFacts::Kind::listener_socket ? "listener-socket" : "trigger-file";
  ja["pid"] = af.pid ? json(*af.pid) : json(nullptr);
  ja["inode"] = inode_to_json(af.lstat);
  context.subject_path = af.path;
  ja["findings"] = report_findings_json(findings, context);
  json ignored;
  ja["errors"] = errors_json(af.errors, ignored);
  return ja;
}

json summary_json(const AuditTally& tally) {
  json by_severity = json::object();
  for (Severity sev : {Severity::info, Severity::low, Severity::medium, Severity::high, Severity::critical}) {
    const auto it = tally.by_severity.find(sev);
    by_severity[std::string(to_string(sev))] = it == tally.by_severity.end() ? 0 : it->second;
  }
  json by_rule = json::object();
  for (const auto& [rule, n] : tally.by_rule) by_rule[rule] = n;
  json by_verdict = json::object();
  for (std::size_t v = 0; v + 1 < tally.files_by_verdict.size(); ++v) {
    if (tally.files_by_verdict[v] > 0) {
      by_verdict[std::string(to_string(static_cast<Verdict>(v)))] = tally.files_by_verdict[v];
    }
  }
  return {{"findings", tally.findings},
          {"by_severity", by_severity},
          {"by_rule", by_rule},
          {"roots", tally.roots},
          {"namespaces", tally.namespaces},
          {"files", tally.files},
          {"files_by_verdict", by_verdict},
          {"errors", tally.error_count},
          {"highest_severity", tally.worst ? json(to_string(*tally.worst)) : json(nullptr)}};
}

json all_errors_json(const AuditTally& tally) {
  json errors = json::array();
  for (const auto& e : tally.errors) errors.push_back(error_json(e));
  return errors;
}

// The members known when an audit ends (after "attach", which AuditJsonWriter streams): the
// temp dirs with their own findings, the summary and every error. `result` needs its roots and root-level judgements
// only (a streamed audit has dropped the namespaces by then).
json report_closing_json(const AuditResult& result, const AuditTally& tally, const FindingContext& findings) {
  json report;
  json roots = json::array();
  for (std::size_t r = 0; r < result.roots.size(); ++r) {
    roots.push_back(root_json(result.roots[r], result.judgements.at(r), findings));
  }
  report["roots"] = std::move(roots);
  report["summary"] = summary_json(tally);
  report["errors"] = all_errors_json(tally);
  report["errors_not_listed"] = tally.error_count - tally.errors.size();
  report["finished_at"] = format_utc_millis(result.finished_at_ms);
  report["duration_ms"] = result.finished_at_ms - result.started_at_ms;
  report["complete"] = !result.incomplete;
  report["not_looked_at"] = not_looked_at_json(result.not_looked_at);
  report["scope"] = scope_json(result.scope_user);
  report["stopped"] = result.stopped ? json(*result.stopped) : json(nullptr);
  // Last, after every finding (the temp dirs' above included) has added its texts.
  report["texts"] = findings.texts != nullptr ? findings.texts->to_json() : json::object();
  return report;
}

}  // namespace

// Pretty-prints (indent 2) as dump_json would print the whole document, one value at a time,
// except that each file's record is one compact line: a report of any size needs memory for
// one file's JSON only, and 100,000 files do not cost 100,000 x 60 lines of indentation.
class StreamingWriter {
 public:
  // Writes to `sink` in pieces of about kFlushAt bytes.
  explicit StreamingWriter(const std::function<void(std::string_view)>& sink)
      : sink_(sink),
        serializer_(nlohmann::detail::output_adapter<char>(buffer_), ' ',
                    json::error_handler_t::replace) {
    buffer_.reserve(kFlushAt + 65536);
  }
  // Without a sink: appends everything to `buffer` (its memory reused), for take().
  explicit StreamingWriter(std::string&& buffer)
      : buffer_(std::move(buffer)),
        serializer_(nlohmann::detail::output_adapter<char>(buffer_), ' ',
                    json::error_handler_t::replace) {}
  ~StreamingWriter() = default;
  StreamingWriter(const StreamingWriter&) = delete;
  StreamingWriter& operator=(const StreamingWriter&) = delete;

  void raw(std::string_view text) {
    buffer_.append(text);
    maybe_flush();
  }
  void indent(unsigned depth) { buffer_.append(std::size_t{depth} * kIndent, ' '); }
  // `"key": ` at `depth`, preceded by the separator from the previous member.
  void key(unsigned depth, std::string_view name, bool& first) {
    buffer_.append(first ? "\n" : ",\n");
    first = false;
    indent(depth);
    buffer_.push_back('"');
    buffer_.append(name);  // report keys are fixed ASCII names
    buffer_.append("\": ");
  }
  // An array element's separator and indent.
  void element(unsigned depth, bool& first) {
    buffer_.append(first ? "\n" : ",\n");
    first = false;
    indent(depth);
  }
  void value(const json& v, unsigned depth) {
    const std::size_t from = buffer_.size();
    serializer_.dump(v, true, false, kIndent, depth * kIndent);
    escape_json_invisibles(buffer_, from);  // as dump_json does
    maybe_flush();
  }
  // Where file records go, rendered by append_file_record: one compact line each (a report
  // holds 100,000 of them, and indentation would be half of its bytes).
  std::string& buffer() { return buffer_; }
  void close(char bracket, unsigned depth, bool empty) {
    if (!empty) {
      buffer_.push_back('\n');
      indent(depth);
    }
    buffer_.push_back(bracket);
  }
  // Text rendered elsewhere (render_audit_namespace): a large piece goes to the sink as it
  // is, after what is buffered, instead of through the buffer.
  void pass(std::string_view text) {
    if (!sink_ || text.size() < kFlushAt / 4) {
      raw(text);
      return;
    }
    flush();
    sink_(text);
  }
  void flush() {
    if (!sink_) return;
    if (!buffer_.empty()) sink_(buffer_);
    buffer_.clear();
  }
  std::string take() { return std::move(buffer_); }

 private:
  static constexpr unsigned kIndent = 2;
  static constexpr std::size_t kFlushAt = 1 << 20;
  void maybe_flush() {
    if (sink_ && buffer_.size() >= kFlushAt) flush();
  }
  std::function<void(std::string_view)> sink_;  // a copy: the caller's may be a temporary
  std::string buffer_;
  nlohmann::detail::serializer<json> serializer_;
};

AuditJsonWriter::AuditJsonWriter(const ReportContext& context, const Policy& policy,
                                 std::int64_t started_at_ms, const std::function<void(std::string_view)>& sink)
    : out_(std::make_unique<StreamingWriter>(sink)),
      rules_(std::make_unique<ReportRules>(policy)),
      texts_(std::make_unique<ReportTexts>()) {
  out_->raw("{");
  const json opening = report_opening_json(context, policy.name, started_at_ms, *rules_);
  for (const auto& [name, member] : opening.items()) {
    out_->key(1, name, first_member_);
    out_->value(member, 1);
  }
  out_->key(1, "namespaces", first_member_);
  out_->raw("[");
}

AuditJsonWriter::~AuditJsonWriter() = default;

FindingContext AuditJsonWriter::findings_context() const { return {rules_.get(), texts_.get(), {}}; }

void render_audit_namespace(std::string& text, std::string* closing, std::size_t root_index,
                            const TempRootFacts& root, const NamespaceFacts& ns, const NamespaceJudgement& nj,
                            const FindingContext& findings) {
  StreamingWriter out(std::move(text));
  const LivenessSettings liveness = liveness_settings_for(root);
  bool first_file = ns.part == 0;
  const auto write_files = [&] {
    for (std::size_t f = 0; f < ns.files.size(); ++f) {
      out.element(4, first_file);
      append_file_record(out.buffer(), ns.files[f], nj.files.at(f), liveness, findings);
    }
  };
  if (ns.part > 0) {  // more files of a namespace whose object is open
    write_files();
    text = out.take();
    return;
  }
  out.raw("{");
  bool first_field = true;
  const json header = namespace_json(root_index, ns, nj, findings);
  StreamingWriter* to = &out;
  std::optional<StreamingWriter> after_files;  // what follows the last part's files
  for (const auto& [field, value] : header.items()) {
    to->key(3, field, first_field);
    if (field != "files") {
      to->value(value, 3);
      continue;
    }
    to->raw("[");
    write_files();
    if (ns.more_parts && closing != nullptr) {
      after_files.emplace(std::string());
      to = &*after_files;
    }
    to->close(']', 3, first_file);
  }
  to->close('}', 2, first_field);
  if (after_files) *closing = after_files->take();
  text = out.take();
}

void AuditJsonWriter::add_namespace(std::size_t root_index, const TempRootFacts& root,
                                    const NamespaceFacts& ns, const NamespaceJudgement& nj) {
  std::string text;
  render_audit_namespace(text, nullptr, root_index, root, ns, nj, findings_context());
  add_rendered_namespace(text);
}

void AuditJsonWriter::add_rendered_namespace(std::string_view text) {
  out_->element(2, first_namespace_);
  out_->pass(text);
}

void AuditJsonWriter::add_rendered_continuation(std::string_view text) { out_->pass(text); }

void AuditJsonWriter::open_attach() {
  if (attach_open_) return;
  out_->close(']', 1, first_namespace_);
  out_->key(1, "attach", first_member_);
  out_->raw("[");
  attach_open_ = true;
}

void AuditJsonWriter::add_attach(std::size_t root_index, const AttachFacts& attach,
                                 const Findings& findings) {
  open_attach();
  out_->element(2, first_attach_);
  out_->value(attach_json(root_index, attach, findings, findings_context()), 2);
}

void AuditJsonWriter::finish(const AuditResult& result, const AuditTally& tally) {
  StreamingWriter& out = *out_;
  for (std::size_t r = 0; r < result.roots.size(); ++r) {  // a result's own (not streamed)
    const auto& root = result.roots[r];
    for (std::size_t a = 0; a < root.attach_files.size(); ++a) {
      add_attach(r, root.attach_files[a], result.judgements.at(r).attach_files.at(a));
    }
  }
  open_attach();
  out.close(']', 1, first_attach_);
  const json closing = report_closing_json(result, tally, findings_context());
  for (const auto& [name, member] : closing.items()) {
    out.key(1, name, first_member_);
    out.value(member, 1);
  }
  out.close('}', 0, first_member_);
  out.raw("\n");
  out.flush();
}

json audit_report_json(const AuditResult& result, const ReportContext& context) {
  std::string text;
  write_audit_report_json(result, context, [&](std::string_view piece) { text.append(piece); });
  return json::parse(text);
}

void write_audit_report_json(const AuditResult& result, const ReportContext& context,
                             const std::function<void(std::string_view)>& sink) {
  AuditJsonWriter writer(context, result.policy, result.started_at_ms, sink);
  for (std::size_t r = 0; r < result.roots.size(); ++r) {
    const auto& root = result.roots[r];
    for (std::size_t n = 0; n < root.namespaces.size(); ++n) {
      writer.add_namespace(r, root, root.namespaces[n], result.judgements.at(r).namespaces.at(n));
    }
  }
  writer.finish(result, tally_result(result));
}

json not_looked_at_json(const NotLookedAt& missing) {
  return {{"temp_dirs", missing.temp_dirs},
          {"namespaces", missing.namespaces},
          {"entries", missing.entries},
          {"users", missing.users},
          {"processes", missing.processes},
          {"containers_not_scanned", missing.containers_not_scanned}};
}

json scope_json(const std::optional<std::string>& user) {
  return {{"user", user ? json(escape_non_utf8(*user)) : json(nullptr)}};
}

}  // namespace hsperfguard
