# Regenerates build_info.cpp on every build (the git revision changes without
# CMake re-running); the file is rewritten only when its content changes.
execute_process(COMMAND git -C ${SRC} rev-parse HEAD OUTPUT_VARIABLE GIT_REV OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE rc ERROR_QUIET)
if(NOT rc EQUAL 0)
  set(GIT_REV "unknown")
endif()
execute_process(COMMAND git -C ${SRC} status --porcelain --untracked-files=no OUTPUT_VARIABLE dirty ERROR_QUIET)
if(dirty)
  set(GIT_DIRTY_FLAG 1)
else()
  set(GIT_DIRTY_FLAG 0)
endif()
configure_file(${IN} ${OUT}.tmp @ONLY)
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
