// A DLL the test suite builds under the name jvm.dll: a process that loads it looks like a
// JVM to a module walk, which is all `ps` asks of a blind JVM on Windows.
extern "C" __declspec(dllexport) int hsperfguard_jvm_standin() { return 17; }
