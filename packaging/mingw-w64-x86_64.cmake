# CMake toolchain file for x86_64 Windows with Debian's mingw-w64 cross compiler (the posix
# threads flavour: its C runtime comes with winpthreads, which the library's threads use).
# .ci/deps-windows.sh builds the libraries mcz links with it; a project of an embedder can too:
#   cmake -DCMAKE_TOOLCHAIN_FILE=packaging/mingw-w64-x86_64.cmake -DMCZ_WINDOWS_SYSROOT=DIR ...
# MCZ_WINDOWS_SYSROOT (optional) is a prefix holding Windows libraries (include/, lib/): it is
# searched after the compiler's own, and nothing of this machine's /usr is ever found.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(MINGW_TRIPLET x86_64-w64-mingw32)

set(CMAKE_C_COMPILER ${MINGW_TRIPLET}-gcc-posix)
set(CMAKE_CXX_COMPILER ${MINGW_TRIPLET}-g++-posix)
set(CMAKE_RC_COMPILER ${MINGW_TRIPLET}-windres)
set(CMAKE_AR ${MINGW_TRIPLET}-ar CACHE FILEPATH "archiver")
set(CMAKE_RANLIB ${MINGW_TRIPLET}-ranlib CACHE FILEPATH "ranlib")

set(CMAKE_FIND_ROOT_PATH /usr/${MINGW_TRIPLET})
if(MCZ_WINDOWS_SYSROOT)
    list(APPEND CMAKE_FIND_ROOT_PATH ${MCZ_WINDOWS_SYSROOT})
endif()
# Programs run here (this machine's); headers, libraries and packages only from the roots above.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
