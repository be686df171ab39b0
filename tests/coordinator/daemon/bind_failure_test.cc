// A port in use: the message names the endpoint, the likely cause and the
// option, and Serve reports it before it says it is ready.
#include "coordinator/daemon/bind_failure.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <zmq.hpp>

#include "coordinator/daemon/server.h"
#include "coordinator/policy/simple_placement.h"

namespace iashim::daemon {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(BindFailure, AddressInUseSaysAnotherCoordinatorAndTheOption) {
  EXPECT_EQ(BindFailure("--listen", "tcp://127.0.0.1:5555", EADDRINUSE, "Address already in use"),
            "cannot listen on tcp://127.0.0.1:5555: Address already in use: another "
            "iashim-coordinator may be running; stop it, or give this one another endpoint "
            "with --listen");
  EXPECT_THAT(BindFailure("--pub", "tcp://127.0.0.1:5556", EADDRINUSE, "Address already in use"),
              AllOf(HasSubstr("cannot publish on tcp://127.0.0.1:5556"), HasSubstr("with --pub")));
}

TEST(BindFailure, OtherErrorsCarryNoGuess) {
  EXPECT_EQ(
      BindFailure("--listen", "tcp://10.9.9.9:1", EADDRNOTAVAIL, "Cannot assign requested address"),
      "cannot listen on tcp://10.9.9.9:1: Cannot assign requested address");
}

TEST(ServeBind, PortInUseIsReportedAndReadyNeverSaid) {
  zmq::context_t context(1);
  zmq::socket_t holder(context, zmq::socket_type::router);
  holder.set(zmq::sockopt::linger, 0);
  holder.bind("tcp://127.0.0.1:*");
  DaemonOptions options;
  options.listen = holder.get(zmq::sockopt::last_endpoint);
  options.pub = "tcp://127.0.0.1:*";
  policy::Cluster cluster;
  cluster.gpus.push_back({{"node1", 0}, "v100", "Tesla V100", "GPU-1", 32ULL << 30});
  Coordinator coordinator(options, cluster, nullptr, std::make_unique<policy::SimplePlacement>(),
                          0);
  std::atomic<bool> stop{true};  // were it to bind, it would return at once
  bool ready = false;
  const absl::Status s =
      Serve(options, coordinator, nullptr, &stop, ServerKeys{}, [&] { ready = true; });
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), AllOf(HasSubstr(options.listen), HasSubstr("another iashim-coordinator"),
                                 HasSubstr("--listen"), Not(HasSubstr("--pub"))));
  EXPECT_FALSE(ready);
}

}  // namespace
}  // namespace iashim::daemon
