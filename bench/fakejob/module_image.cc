#include "bench/fakejob/module_image.h"

#include <charconv>
#include <map>
#include <set>
#include <tuple>

#include "absl/strings/str_cat.h"

namespace iashim::fakejob {

std::string FormatFixed(double value, int decimals) {
  char buf[64];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::fixed, decimals);
  if (ec != std::errc()) return "0";
  return std::string(buf, ptr);
}

ModuleImage BuildModuleImage(const ModelProfile& profile, bool all_reduce) {
  ModuleImage image;
  image.text = absl::StrCat("simgpu-module 1\n# iashim-fakejob model ", profile.name, ": ",
                            profile.launches.size(), " launches per iteration\n");
  // Names the profile itself uses, so a generated _L<n> never collides.
  std::set<std::string> taken;
  for (const KernelLaunch& k : profile.launches) taken.insert(k.name);

  using Key = std::tuple<std::string, double, double>;
  std::map<Key, uint32_t> index;        // variant -> function index
  std::map<std::string, int> variants;  // base name -> variants so far
  image.launch_function.reserve(profile.launches.size());
  for (const KernelLaunch& k : profile.launches) {
    Key key{k.name, k.duration_us, k.mem_intensity};
    auto it = index.find(key);
    if (it == index.end()) {
      int& n = variants[k.name];
      std::string fn = k.name;
      if (n > 0) {
        int suffix = n + 1;
        do {
          fn = absl::StrCat(k.name, "_L", suffix++);
        } while (taken.count(fn));
        n = suffix - 1;
      } else {
        n = 1;
      }
      taken.insert(fn);
      it = index.emplace(key, static_cast<uint32_t>(image.functions.size())).first;
      image.functions.push_back(fn);
      absl::StrAppend(&image.text, "kernel ", fn, " fixed_us=", FormatFixed(k.duration_us, 3),
                      " mem=", FormatFixed(k.mem_intensity, 3), "\n");
    }
    image.launch_function.push_back(it->second);
  }
  if (all_reduce) {
    // NCCL's ring all-reduce kernel: it spins on a few SMs, moving little
    // through DRAM for its SMs' share (simgpu/README.md, Collectives).
    std::string fn = kAllReduceKernel;
    while (taken.count(fn)) fn += "_x";
    image.all_reduce_function = static_cast<int>(image.functions.size());
    image.functions.push_back(fn);
    absl::StrAppend(&image.text, "kernel ", fn, " collective=allreduce mem=0.1\n");
  }
  return image;
}

}  // namespace iashim::fakejob
