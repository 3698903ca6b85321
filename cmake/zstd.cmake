# zstd.cmake - the target mcz::zstd, the zstd mcz compiles and links with:
#   MCZ_ZSTD_SOURCE_DIR=<a zstd source tree>  zstd's library built from that tree, static, as
#       the runtime vendors it (src/native/external/zstd): compression, decompression and the
#       dictionary builder (the writer trains dictionaries), no legacy formats, no assembly
#       (the C decoder: one build for every compiler), no threads of its own (mcz's workers
#       are its parallelism).
#   otherwise                                 the system's libzstd (find_library).
if(TARGET mcz::zstd)
    return()
endif()
if(MCZ_ZSTD_SOURCE_DIR)
    set(_zstd_lib "${MCZ_ZSTD_SOURCE_DIR}/lib")
    if(NOT EXISTS "${_zstd_lib}/zstd.h" OR NOT EXISTS "${_zstd_lib}/zdict.h")
        message(FATAL_ERROR "MCZ_ZSTD_SOURCE_DIR=${MCZ_ZSTD_SOURCE_DIR}: no lib/zstd.h and "
                            "lib/zdict.h there (the top of a zstd source tree is expected)")
    endif()
    file(GLOB _zstd_src CONFIGURE_DEPENDS "${_zstd_lib}/common/*.c" "${_zstd_lib}/compress/*.c"
         "${_zstd_lib}/decompress/*.c" "${_zstd_lib}/dictBuilder/*.c")
    add_library(mcz_zstd STATIC ${_zstd_src})
    target_include_directories(mcz_zstd PUBLIC "${_zstd_lib}")
    target_compile_definitions(mcz_zstd PRIVATE ZSTD_DISABLE_ASM ZSTD_LEGACY_SUPPORT=0)
    set_target_properties(mcz_zstd PROPERTIES POSITION_INDEPENDENT_CODE ON C_STANDARD 99)
    add_library(mcz::zstd ALIAS mcz_zstd)
    unset(_zstd_src)
    unset(_zstd_lib)
else()
    find_path(MCZ_ZSTD_INCLUDE_DIR zstd.h)
    find_library(MCZ_ZSTD_LIBRARY zstd)
    if(NOT MCZ_ZSTD_INCLUDE_DIR OR NOT MCZ_ZSTD_LIBRARY)
        message(FATAL_ERROR "zstd not found: install libzstd-dev (.ci/deps.sh), or set "
                            "MCZ_ZSTD_SOURCE_DIR to a zstd source tree")
    endif()
    add_library(mcz::zstd UNKNOWN IMPORTED)
    set_target_properties(mcz::zstd PROPERTIES IMPORTED_LOCATION "${MCZ_ZSTD_LIBRARY}"
                          INTERFACE_INCLUDE_DIRECTORIES "${MCZ_ZSTD_INCLUDE_DIR}")
endif()
