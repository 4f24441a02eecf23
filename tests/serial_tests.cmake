# Read by ctest after the discovered tests (tests/CMakeLists.txt, TEST_INCLUDE_FILES): the tests
# that run alone, because what they set up is seen by every run of the tool on the host.
# Each starts, as nobody, processes whose /proc/<pid>/maps is far beyond the 16 MiB the tool
# reads of one: an audit of any tree that runs beside them cannot tell whether those
# processes are JVMs, says so and is incomplete (exit 3), and a test of that audit's exit
# status failed (TextOutput.ColourOnATerminalOnlyAndNeverWithNoColorNeverOrAPipe, twice in CI).
set_tests_properties(
  HostileInput.ProcessWithHugeMapsCostsBoundedMemory
  HostileInput.ProcessesWithHugeMapsCannotHoldOffMaxRuntimeOrSigterm
  PROPERTIES RUN_SERIAL TRUE)
