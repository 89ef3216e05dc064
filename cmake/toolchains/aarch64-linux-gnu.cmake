# Cross-compiling ptxsim for Linux aarch64 on an x86-64 Debian host (scripts/test-aarch64.sh).
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake \
#         -DPTXSIM_AARCH64_SYSROOT=DIR
# Compiler: Debian's g++-aarch64-linux-gnu (its own glibc and libstdc++ under /usr/aarch64-linux-gnu).
# DIR: the arm64 libraries the build finds (libzstd, liblz4, libssl, gtest, rapidcheck, CPython ...),
# Debian arm64 packages unpacked with dpkg -x. Test programs run under qemu-aarch64 with DIR as
# its root for the dynamic loader and libraries (CMAKE_CROSSCOMPILING_EMULATOR: ctest and
# gtest_discover_tests use it).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# Try-compiles see the cache variable too.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES PTXSIM_AARCH64_SYSROOT)
if(NOT PTXSIM_AARCH64_SYSROOT)
  message(FATAL_ERROR "aarch64-linux-gnu.cmake: set -DPTXSIM_AARCH64_SYSROOT=<unpacked arm64 packages>")
endif()
set(CMAKE_FIND_ROOT_PATH ${PTXSIM_AARCH64_SYSROOT} /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)   # nvcc, ccache, pkg-config: the host's
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(ENV{PKG_CONFIG_LIBDIR}
    "${PTXSIM_AARCH64_SYSROOT}/usr/lib/aarch64-linux-gnu/pkgconfig:${PTXSIM_AARCH64_SYSROOT}/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${PTXSIM_AARCH64_SYSROOT}")
# Headers: the packages' own (found through their CMake and pkg-config files) and Debian's
# multiarch directory, where opensslconf.h and CPython's pyconfig.h live (<aarch64-linux-gnu/...>).
set(CMAKE_CXX_FLAGS_INIT
    "-isystem ${PTXSIM_AARCH64_SYSROOT}/usr/include/aarch64-linux-gnu -isystem ${PTXSIM_AARCH64_SYSROOT}/usr/include")
set(CMAKE_C_FLAGS_INIT "${CMAKE_CXX_FLAGS_INIT}")
# The unpacked shared libraries (libzstd.so.1, ...) for the linker's checks of indirect dependencies.
set(CMAKE_EXE_LINKER_FLAGS_INIT
    "-Wl,-rpath-link,${PTXSIM_AARCH64_SYSROOT}/usr/lib/aarch64-linux-gnu -Wl,-rpath-link,${PTXSIM_AARCH64_SYSROOT}/lib/aarch64-linux-gnu")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "${CMAKE_EXE_LINKER_FLAGS_INIT}")

find_program(PTXSIM_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static REQUIRED)
set(CMAKE_CROSSCOMPILING_EMULATOR ${PTXSIM_QEMU_AARCH64} -L ${PTXSIM_AARCH64_SYSROOT})
