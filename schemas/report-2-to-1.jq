# Rebuilds the findings of a version 1 audit report ("hsperfguard-report/1") from a version 2
# one: every finding gets back its severity, path (and path_hex), message, remediation and
# repairable from its rule in "rules", the subject that holds it and the shared "texts".
#
#   hsperfguard audit --format json | jq -f schemas/report-2-to-1.jq
#
# docs/migration.md says what each field became.
.rules as $rules
| .texts as $texts
| def v1($subject; $subject_hex):
    (if has("path") then . else .path = $subject
       | if $subject_hex == null then . else .path_hex = $subject_hex end end)
    | .path as $p
    | (if has("severity") then . else .severity = $rules[.rule_index].severity end)
    | (if has("repairable") then . else .repairable = false end)
    | (if has("message_ref") then .message = ($texts[.message_ref] | gsub("<path>"; $p)) else . end)
    | (if has("remediation_ref") then .remediation = ($texts[.remediation_ref] | gsub("<path>"; $p)) else . end)
    | del(.message_ref, .remediation_ref, .rule_index);
  walk(if type == "object" and (.findings | type) == "array"
       then (if has("temp_dir") then [.temp_dir, .temp_dir_hex] else [.path, .path_hex] end) as [$s, $h]
            | .findings |= map(v1($s; $h))
       else . end)
| del(.rules, .texts)
| .schema = "hsperfguard-report/1"
