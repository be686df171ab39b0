// The NVML loader against simgpu's libnvidia-ml.so.1 (found through the
// LD_LIBRARY_PATH CMakeLists.txt gives this test), a library that is not
// NVML, and one that does not exist.
#include "common/nvml/nvml_library.h"

#include <set>
#include <string>

#include "gtest/gtest.h"

namespace iashim::nvml {
namespace {

constexpr Entry kEveryEntry[] = {
    Entry::kInit,         Entry::kShutdown,           Entry::kErrorString,
    Entry::kDeviceCount,  Entry::kDeviceHandle,       Entry::kDeviceName,
    Entry::kDeviceUuid,   Entry::kMemoryInfo,         Entry::kProcessUtilization,
    Entry::kRunningProcesses, Entry::kTotalEnergy,
};

TEST(NvmlLibrary, SimgpusNvmlHasEveryEntryPointAndNamesItsErrors) {
  std::string error;
  std::unique_ptr<Library> library = Library::Open("libnvidia-ml.so.1", &error);
  ASSERT_NE(library, nullptr) << error;
  for (Entry entry : kEveryEntry) {
    EXPECT_EQ(library->FirstMissing({entry}), nullptr) << EntryName(entry);
  }
  EXPECT_EQ(library->Describe(9), "Driver Not Loaded (NVML error 9)");
}

TEST(NvmlLibrary, ALibraryThatIsNotNvmlLacksTheFirstEntryAsked) {
  std::string error;
  std::unique_ptr<Library> library = Library::Open("libm.so.6", &error);
  ASSERT_NE(library, nullptr) << error;
  EXPECT_STREQ(library->FirstMissing({Entry::kTotalEnergy, Entry::kInit}),
               "nvmlDeviceGetTotalEnergyConsumption");
  EXPECT_STREQ(library->FirstMissing({Entry::kInit}), "nvmlInit_v2");
  EXPECT_EQ(library->FirstMissing({}), nullptr);
  EXPECT_EQ(library->Describe(9), "NVML error 9");  // no nvmlErrorString to ask
}

TEST(NvmlLibrary, AMissingLibrarySaysWhy) {
  std::string error;
  EXPECT_EQ(Library::Open("libiashim-no-such-nvml.so.1", &error), nullptr);
  EXPECT_NE(error.find("libiashim-no-such-nvml.so.1"), std::string::npos) << error;
}

TEST(NvmlLibrary, EveryEntryHasItsOwnNvmlName) {
  std::set<std::string> names;
  for (Entry entry : kEveryEntry) {
    const std::string name = EntryName(entry);
    EXPECT_EQ(name.rfind("nvml", 0), 0u) << name;
    names.insert(name);
  }
  EXPECT_EQ(names.size(), std::size(kEveryEntry));
}

}  // namespace
}  // namespace iashim::nvml
