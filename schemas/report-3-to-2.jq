# Rebuilds a version 2 audit report ("hsperfguard-report/2") from a version 3 one: a file's
# finding whose evidence version 3 leaves to the file's record gets it back, file.stale's and
# file.pid-reused's from the file's verdict (the values that settled it), file.bad-prologue's
# from the file's region; the region's error loses the two members version 3 added to it.
#
#   hsperfguard audit --format json | jq -f schemas/report-3-to-2.jq
#   hsperfguard audit --format json | jq -f schemas/report-3-to-2.jq | jq -f schemas/report-2-to-1.jq
#
# docs/migration.md says what each field became.
def verdict_evidence($v):
  ($v.evidence | with_entries(select(.key == "decided_by" or .key == "decided_by_pid"
                                     or .key == "would_be" or .key == "lock"
                                     or .key == "vm_begin_time_ms")))
  | (if has("lock") then .lock = (.lock.state // "unknown") else . end)
  | .verdict = $v.verdict
  | .reason = $v.reason;
def region_evidence($r):
  {bytes_read: $r.bytes_read, entries_decoded: $r.entries, offset: $r.error.offset,
   prologue: $r.prologue, reason: $r.error.reason, region_size: $r.error.region_size,
   walk_end: $r.error.walk_end};
.namespaces |= map(.files |= map(
    . as $file
    | .findings |= map(
        if has("evidence") then .
        elif .rule == "file.stale" or .rule == "file.pid-reused" then .evidence = verdict_evidence($file.verdict)
        elif .rule == "file.bad-prologue" then .evidence = region_evidence($file.region)
        else . end)
    | if (.region.error | type) == "object" then .region.error |= del(.region_size, .walk_end) else . end))
| .schema = "hsperfguard-report/2"
