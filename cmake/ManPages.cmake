# Man pages generated from each tool's --help and --version by help2man (Debian `help2man`), at
# build time, installed to share/man/man1. Without help2man the build goes on without them.
# A cross build (cmake/toolchains/) runs its tools through CMAKE_CROSSCOMPILING_EMULATOR, and
# without one has no man pages.
# The target pmt_man_pages always exists (empty without pages), so that a script building only
# some tools (scripts/run-main.sh) can name it and `cmake --install` finds every page it lists.
find_program(HELP2MAN_EXECUTABLE help2man)
set(PMT_MAN_PAGES)
if(NOT HELP2MAN_EXECUTABLE)
  message(STATUS "help2man not found: no man pages")
elseif(CMAKE_CROSSCOMPILING AND NOT CMAKE_CROSSCOMPILING_EMULATOR)
  message(STATUS "cross build: no man pages (the tools cannot run on this machine)")
else()
  # pmt_man_page(TARGET "one-line description" [COMMANDS]): COMMANDS adds a section with the
  # --help of each of the tool's commands (cmake/man-commands.sh).
  function(pmt_man_page target description)
    if(NOT TARGET ${target})
      return()
    endif()
    set(page ${PROJECT_BINARY_DIR}/man/${target}.1)
    set(program $<TARGET_FILE:${target}>)
    if(CMAKE_CROSSCOMPILING)
      # help2man and man-commands.sh take one program: a script of the tool's name runs it under
      # the emulator (the name, not the path, is what help2man shows).
      set(program ${PROJECT_BINARY_DIR}/man/emulated/${target})
      list(JOIN CMAKE_CROSSCOMPILING_EMULATOR " " emulator)
      file(GENERATE OUTPUT ${program} CONTENT "#!/bin/sh\nexec ${emulator} $<TARGET_FILE:${target}> \"$@\"\n"
           FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
    endif()
    set(include_args)
    set(make_include)
    if("COMMANDS" IN_LIST ARGN)
      set(include ${PROJECT_BINARY_DIR}/man/${target}.commands)
      set(include_args --include=${include})
      set(make_include COMMAND ${PROJECT_SOURCE_DIR}/cmake/man-commands.sh ${program} ${include})
    endif()
    add_custom_command(OUTPUT ${page}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/man
      ${make_include}
      COMMAND ${HELP2MAN_EXECUTABLE} --no-info --section=1 --source=PocketMT ${include_args}
              "--name=${description}" --output=${page} ${program}
      DEPENDS ${target} ${PROJECT_SOURCE_DIR}/cmake/man-commands.sh
      COMMENT "help2man ${target}"
      VERBATIM)
    set(PMT_MAN_PAGES ${PMT_MAN_PAGES} ${page} PARENT_SCOPE)
  endfunction()

  pmt_man_page(pmt-convert "build a corpus, train, export and inspect PocketMT models" COMMANDS)
  pmt_man_page(pmt-translate "translate text with a PocketMT model, one output line per input line")
  pmt_man_page(pmt-bench "latency, throughput and memory of PocketMT models")
endif()
add_custom_target(pmt_man_pages ALL DEPENDS ${PMT_MAN_PAGES})
if(PMT_MAN_PAGES)
  install(FILES ${PMT_MAN_PAGES} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endif()
