# Every third-party library comes from Debian packages (scripts/setup.sh).
find_package(Threads REQUIRED)
find_package(GTest REQUIRED)
find_package(benchmark REQUIRED)
find_package(absl REQUIRED)
find_package(FlatBuffers REQUIRED)
# ZeroMQ by hand, not through pkg-config: Debian's libzmq.pc carries
# "-isystem /usr/include/mit-krb5" in its Cflags, which FindPkgConfig files under
# compile options on the first configure and under include directories on the
# next, so a second configure recompiled every target that links ZeroMQ.
# zmq.h needs none of the directories that .pc file lists.
find_path(ZMQ_INCLUDE_DIR zmq.h REQUIRED)
find_library(ZMQ_LIBRARY zmq REQUIRED)
add_library(ZeroMQ::libzmq UNKNOWN IMPORTED)
set_target_properties(ZeroMQ::libzmq PROPERTIES
  IMPORTED_LOCATION "${ZMQ_LIBRARY}"
  INTERFACE_INCLUDE_DIRECTORIES "${ZMQ_INCLUDE_DIR}")
find_path(CPPZMQ_INCLUDE_DIR zmq.hpp REQUIRED)
find_program(FLATC flatc REQUIRED)
