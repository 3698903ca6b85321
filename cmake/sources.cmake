# sources.cmake - reads sources.mk (the list the Makefile includes) into CMake variables: each
# "NAME := words" line becomes NAME, its words expanded as the Makefile's $(wildcard) expands
# them (sorted, relative to the source tree), so the two builds compile the same files.
# CONFIGURE_DEPENDS: a file added to a listed directory reconfigures the build, as it is picked
# up by the next make.
function(mcz_read_sources file)
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${file}")
    file(STRINGS "${file}" lines REGEX "^[A-Za-z_][A-Za-z0-9_-]* *:=")
    foreach(line IN LISTS lines)
        string(REGEX MATCH "^([A-Za-z_][A-Za-z0-9_-]*) *:= *(.*)$" _ "${line}")
        set(name "${CMAKE_MATCH_1}")
        separate_arguments(words UNIX_COMMAND "${CMAKE_MATCH_2}")
        set(files "")
        foreach(word IN LISTS words)
            if(word MATCHES "[*?]")
                file(GLOB found RELATIVE "${CMAKE_CURRENT_SOURCE_DIR}" CONFIGURE_DEPENDS
                     "${CMAKE_CURRENT_SOURCE_DIR}/${word}")
                list(SORT found)
                list(APPEND files ${found})
            else()
                list(APPEND files "${word}")
            endif()
        endforeach()
        set(${name} "${files}" PARENT_SCOPE)
    endforeach()
endfunction()
