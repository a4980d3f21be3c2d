# Installation in FHS places (cmake --install) and the Debian package (cpack).
include(GNUInstallDirs)

install(TARGETS rooftop RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# Man page from --help and --version (Debian's help2man, in BUILD_PKGS).
find_program(HELP2MAN_PROGRAM help2man)
if(HELP2MAN_PROGRAM)
  set(rooftop_man ${CMAKE_BINARY_DIR}/man/rooftop.1)
  # Compressed, as Debian policy wants man pages.
  add_custom_command(OUTPUT ${rooftop_man}.gz
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/man
    COMMAND ${HELP2MAN_PROGRAM} --no-info --section 1
            --name "choose, size, measure and watch AI accelerators"
            --include ${CMAKE_SOURCE_DIR}/scripts/rooftop.h2m
            --output ${rooftop_man} $<TARGET_FILE:rooftop>
    COMMAND gzip -9nf ${rooftop_man}
    DEPENDS rooftop ${CMAKE_SOURCE_DIR}/scripts/rooftop.h2m
    COMMENT "Man page rooftop.1 from rooftop --help")
  add_custom_target(rooftop_man ALL DEPENDS ${rooftop_man}.gz)
  install(FILES ${rooftop_man}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(WARNING "help2man not found: no man page is built or installed (apt-get install help2man)")
endif()

# Shell completions, in the folders bash-completion and zsh read.
install(FILES scripts/completions/rooftop.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME rooftop)
install(FILES scripts/completions/_rooftop DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)

# Documentation, and the example scenarios the docs run.
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} FILES_MATCHING PATTERN "*.md")
install(DIRECTORY data/scenarios DESTINATION ${CMAKE_INSTALL_DATADIR}/rooftop)

# cpack -G DEB (make package): the library dependencies come from
# dpkg-shlibdeps; libraries rooftop dlopens (OpenBLAS, Open MPI, the vendor
# management libraries) are suggestions, as it runs without them.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME rooftop)
set(CPACK_PACKAGE_VENDOR "rooftop")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "choose, size, measure and watch AI accelerators")
set(CPACK_PACKAGE_DESCRIPTION
    "Predicts performance with a roofline model over a sourced catalog of accelerators, measures the local machine, monitors and analyses fleets, and writes Kubernetes files to serve and watch models. Includes the Python module rooftop for python3.")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "rooftop maintainers <rooftop@example.org>")
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libopenblas0, libopenmpi3, prometheus, python3-pandas")
# The Python module (python/) is built for one interpreter version: the
# package recommends it, as the command runs without Python.
if(ROOFTOP_PYTHON_ABI)
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "${ROOFTOP_PYTHON_ABI}")
endif()
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_CHECKSUM SHA256)
include(CPack)
