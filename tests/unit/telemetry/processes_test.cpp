// describe_processes: command, user and container id from a procfs tree.
#include <gtest/gtest.h>

#include <filesystem>

#include "telemetry/telemetry.h"
#include "test_util.h"

namespace rooftop::telemetry {
namespace {

TEST(Processes, CommandUserAndContainerFromProc) {
  const std::string root = test::scratch_dir("processes");
  const std::string id(64, 'a');
  std::filesystem::create_directories(root + "/proc/123");
  std::filesystem::create_directories(root + "/proc/124");
  std::filesystem::create_directories(root + "/etc");
  test::write_file(root + "/proc/123/comm", "python3\n");
  test::write_file(root + "/proc/123/status", "Name:\tpython3\nUid:\t1000\t1000\t1000\t1000\n");
  test::write_file(root + "/proc/123/cgroup",
                   "0::/kubepods.slice/kubepods-pod1.slice/cri-containerd-" + id + ".scope\n");
  test::write_file(root + "/proc/124/comm", "bash\n");
  test::write_file(root + "/proc/124/status", "Name:\tbash\nUid:\t4321\t0\t0\t0\n");
  test::write_file(root + "/proc/124/cgroup", "0::/user.slice/session-3.scope\n");
  test::write_file(root + "/etc/passwd", "root:x:0:0::/root:/bin/sh\nalice:x:1000:1000::/home/alice:/bin/sh\n");
  Snapshot snap;
  DeviceReading r;
  r.sample.processes = {{123, 1.0, "", "", ""}, {124, 2.0, "", "", ""}, {999999, 3.0, "", "", ""}};
  snap.devices.push_back(r);
  describe_processes(snap, root);
  const auto& p = snap.devices[0].sample.processes;
  EXPECT_EQ(p[0].command, "python3");
  EXPECT_EQ(p[0].user, "alice");
  EXPECT_EQ(p[0].container, id.substr(0, 12));
  EXPECT_EQ(p[1].command, "bash");
  EXPECT_EQ(p[1].user, "4321");  // the real uid, not in passwd: its number
  EXPECT_EQ(p[1].container, "");
  EXPECT_EQ(p[2].command, "");  // gone: nothing invented
  EXPECT_EQ(p[2].user, "");
}

}  // namespace
}  // namespace rooftop::telemetry
