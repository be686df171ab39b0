// Test side of the wire: encodes a ClusterView as the coordinator publishes
// it (one Envelope holding a StateSnapshot), with FlatBufferBuilder, so tests
// and the test publisher send real messages.
#ifndef IASHIM_TESTS_COORDINATOR_TOP_SNAPSHOT_ENCODER_H_
#define IASHIM_TESTS_COORDINATOR_TOP_SNAPSHOT_ENCODER_H_

#include <cstdint>
#include <vector>

#include "coordinator/top/snapshot_view.h"

namespace iashim::top::test_support {

// `version` other than 1 makes a message from a future coordinator.
std::vector<uint8_t> EncodeSnapshot(const ClusterView& view, uint16_t version = 1);

// A valid Envelope of the current version whose payload is not a snapshot.
std::vector<uint8_t> EncodeHello();

// A small cluster: one GPU "node-a:0" with three jobs of assorted values.
ClusterView SampleCluster();

}  // namespace iashim::top::test_support

#endif  // IASHIM_TESTS_COORDINATOR_TOP_SNAPSHOT_ENCODER_H_
