# Cross-compiling for 64-bit Windows with mingw-w64 (Debian: g++-mingw-w64-x86-64-posix).
# The posix thread variant gives std::thread and std::mutex; the runtime is linked statically
# so the executables run under wine (and on Windows) without any mingw DLL beside them.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

set(HSPERFGUARD_MINGW_TRIPLET x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${HSPERFGUARD_MINGW_TRIPLET}-gcc-posix)
set(CMAKE_CXX_COMPILER ${HSPERFGUARD_MINGW_TRIPLET}-g++-posix)
set(CMAKE_RC_COMPILER ${HSPERFGUARD_MINGW_TRIPLET}-windres)

set(CMAKE_FIND_ROOT_PATH /usr/${HSPERFGUARD_MINGW_TRIPLET})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

set(CMAKE_EXE_LINKER_FLAGS_INIT "-static -static-libgcc -static-libstdc++")

# Test executables run under wine, in a private prefix inside the build directory unless
# WINEPREFIX says otherwise. No display is needed for console programs.
find_program(HSPERFGUARD_WINE NAMES wine wine64 wine-stable)
if(HSPERFGUARD_WINE)
  if(DEFINED ENV{WINEPREFIX})
    set(HSPERFGUARD_WINEPREFIX "$ENV{WINEPREFIX}")
  else()
    set(HSPERFGUARD_WINEPREFIX "${CMAKE_BINARY_DIR}/wineprefix")
  endif()
  set(CMAKE_CROSSCOMPILING_EMULATOR
      env WINEDEBUG=-all WINEDLLOVERRIDES=mscoree,mshtml= WINEPREFIX=${HSPERFGUARD_WINEPREFIX}
      ${HSPERFGUARD_WINE})
endif()
