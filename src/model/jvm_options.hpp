// What a JVM's options say about its performance data and where it publishes it, from the
// bytes /proc shows: its
// command line (NUL-separated arguments) and its environment (NUL-separated NAME=value).
// Pure and bounded: no option is trusted to be well formed.
#pragma once

#include <optional>
#include <string_view>

#include "model/facts.hpp"

namespace hsperfguard {

// HotSpot reads JAVA_TOOL_OPTIONS first, then the launcher's arguments (JDK_JAVA_OPTIONS
// comes before the command line's own), then _JAVA_OPTIONS; the last setting of a flag wins.
// The JVM options of the command line end at the main class, `-jar FILE`, `-m MODULE` or
// `--module MODULE`; later arguments are the program's. The result says whether
// -XX:-UsePerfData or -XX:+PerfDisableSharedMem is in effect and which flag decided it, or
// nullopt when no such flag is given at all. Not followed: @argfiles, -XX:Flags=FILE and
// -XX:VMOptionsFile=FILE (the flags in those files are not seen).
std::optional<PerfDataOption> perf_data_option(std::string_view cmdline, std::string_view environment);

// The -XX:AltTempDir=DIR in effect, read in the same order from the same places (the last
// setting wins), or nullopt when none is given. A relative DIR is returned as written
// (AltTempDirOption::absolute() says HotSpot ignores it). An environment variable's options are
// split on blanks, as for the perf-data flags: a DIR with a blank is seen only on the
// command line, where each argument is one word.
std::optional<AltTempDirOption> alt_temp_dir_option(std::string_view cmdline, std::string_view environment);

// Windows: the temp dir a JVM with this environment (NUL-separated NAME=value, names without
// regard to case, as Windows reads them) uses, as GetTempPath finds it and HotSpot's
// os::get_temp_directory takes it: the first of TMP, TEMP and USERPROFILE that is set and not
// empty, else `windows_dir`. Without the trailing separators GetTempPath adds.
std::string windows_temp_dir(std::string_view environment, std::string_view windows_dir);

}  // namespace hsperfguard
