// Unit tests of src/device.h: the block device under a target in a fake
// sysfs (SATA, NVMe, USB links; dm, md, loop, btrfs), its counters, holes.
#include "../../src/device.h"
#include "scratch.h"
#include "../../src/run.h"	// read_stats

#include <doctest/doctest.h>	// runner: tests/doctest_main.cpp

#include "helpers.h"

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/sysmacros.h>
#include <unistd.h>

TEST_SUITE("device") {

// The fixture for the verification: a fake /sys with the symlinks real
// sysfs has (/sys/dev/block/M:m -> ../../devices/.../block/sda).
struct DeviceTree : SysfsFixture {
	void link(const std::string &path, const std::string &target) const
	{
		write(path + ".tmp", "");	// makes the directories
		unlink((root + path + ".tmp").c_str());
		CHECK(symlink(target.c_str(), (root + path).c_str()) == 0);
	}
	// A block device at devices/DIR, known as M:m, with a stat line.
	void disk(const std::string &dir, const std::string &majmin, const std::string &stat = "0 0 0 0 0 0 0 0 0 0 0") const
	{
		std::string name = dir.substr(dir.find_last_of('/') + 1);
		write("/devices/" + dir + "/stat", stat);
		write("/devices/" + dir + "/uevent", "MAJOR=0\nDEVNAME=" + name);
		link("/dev/block/" + majmin, "../../devices/" + dir);
	}
};

const char *const sata_disk = "pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda";

TEST_CASE("find_device: a partition counts as itself; the SATA link of its disk")
{
	DeviceTree fx;
	REQUIRE_FALSE(fx.root.empty());
	fx.disk(sata_disk, "8:0");
	fx.disk(std::string(sata_disk) + "/sda1", "8:1");
	fx.write(std::string("/devices/") + sata_disk + "/sda1/partition", "1");
	fx.write("/class/ata_link/link1/sata_spd", "6.0 Gbps");
	Device d = find_device(plan_on(makedev(8, 1)));
	CHECK(d.reason == "");
	CHECK(d.name == "sda1");
	CHECK(d.path == "/dev/sda1");
	REQUIRE(d.stats.size() == 1);
	CHECK(d.stats[0] == fx.root + "/devices/" + sata_disk + "/sda1/stat");
	CHECK(d.disks == std::vector<std::string>{"sda"});
	REQUIRE(d.link);
	CHECK(d.link->kind == "sata");
	CHECK(d.link->bytes_per_second == doctest::Approx(600e6));	// 6 Gbit/s, 8b/10b
	fx.write("/class/ata_link/link1/sata_spd", "<unknown>");
	CHECK_FALSE(find_device(plan_on(makedev(8, 1))).link);
	fx.write("/class/ata_link/link1/sata_spd", "1.5 Gbps");
	CHECK(find_device(plan_on(makedev(8, 0))).link->bytes_per_second == doctest::Approx(150e6));
}

TEST_CASE("find_device: NVMe's PCIe link, the nearest function's, and through a multipath subsystem")
{
	DeviceTree fx;
	REQUIRE_FALSE(fx.root.empty());
	std::string port = "/devices/pci0000:00/0000:00:01.1", fn = port + "/0000:01:00.0";
	fx.write(port + "/current_link_speed", "16.0 GT/s PCIe");
	fx.write(port + "/current_link_width", "16");
	fx.write(fn + "/current_link_speed", "8.0 GT/s PCIe");
	fx.write(fn + "/current_link_width", "4");
	fx.disk("pci0000:00/0000:00:01.1/0000:01:00.0/nvme/nvme0/nvme0n1", "259:0");
	Device d = find_device(plan_on(makedev(259, 0), XFS_SUPER_MAGIC));
	CHECK(d.name == "nvme0n1");
	REQUIRE(d.link);
	CHECK(d.link->kind == "pcie");
	CHECK(d.link->bytes_per_second == doctest::Approx(8e9 * 4 * 128 / 130 / 8));	// 3.94 GB/s
	CHECK(d.link->how == "PCIe 8 GT/s x4, 128b/130b encoding");

	// Native multipath: the namespace lives under nvme-subsystem, its one
	// controller leads to the PCIe function.
	fx.disk("virtual/nvme-subsystem/nvme-subsys1/nvme1n1", "259:1");
	fx.link("/devices/virtual/nvme-subsystem/nvme-subsys1/nvme1", "../../../pci0000:00/0000:00:01.1/0000:01:00.0/nvme/nvme0");
	Device m = find_device(plan_on(makedev(259, 1)));
	REQUIRE(m.link);
	CHECK(m.link->bytes_per_second == doctest::Approx(8e9 * 4 * 128 / 130 / 8));
	fx.link("/devices/virtual/nvme-subsystem/nvme-subsys1/nvme2", "../../../pci0000:00/0000:00:01.1");
	CHECK_FALSE(find_device(plan_on(makedev(259, 1))).link);	// two controllers: the policy picks

	fx.write(fn + "/current_link_speed", "2.5 GT/s PCIe");	// PCIe 1: 8b/10b
	fx.write(fn + "/current_link_width", "1");
	CHECK(find_device(plan_on(makedev(259, 0))).link->bytes_per_second == doctest::Approx(250e6));
	fx.write(fn + "/current_link_speed", "Unknown");	// the root port's is not the drive's
	CHECK(find_device(plan_on(makedev(259, 0))).link->bytes_per_second == doctest::Approx(16e9 * 16 * 128 / 130 / 8));
}

TEST_CASE("find_device: a USB disk's speed and its usable share")
{
	DeviceTree fx;
	REQUIRE_FALSE(fx.root.empty());
	std::string hub = "/devices/pci0000:00/0000:00:14.0/usb2", dev = hub + "/2-1";
	fx.write(hub + "/speed", "10000");
	fx.write(hub + "/devnum", "1");
	fx.write(dev + "/speed", "5000");
	fx.write(dev + "/devnum", "3");
	fx.disk("pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0/host6/target6:0:0/6:0:0:0/block/sdb", "8:16");
	Device d = find_device(plan_on(makedev(8, 16)));
	REQUIRE(d.link);
	CHECK(d.link->kind == "usb");
	CHECK(d.link->bytes_per_second == doctest::Approx(500e6));	// 5 Gbit/s, 8b/10b: the device's, not the hub's
	fx.write(dev + "/speed", "480");
	CHECK(find_device(plan_on(makedev(8, 16))).link->bytes_per_second == doctest::Approx(53.248e6));
	fx.write(dev + "/speed", "10000");
	CHECK(find_device(plan_on(makedev(8, 16))).link->bytes_per_second == doctest::Approx(10e9 * 128 / 132 / 8));
	fx.write(dev + "/speed", "20000");
	CHECK(find_device(plan_on(makedev(8, 16))).link->bytes_per_second == doctest::Approx(20e9 * 128 / 132 / 8));
}

TEST_CASE("find_device: dm and md count as themselves, slaves and disks listed; a loop device names its file")
{
	DeviceTree fx;
	REQUIRE_FALSE(fx.root.empty());
	fx.write("/class/ata_link/link1/sata_spd", "3.0 Gbps");
	fx.disk(sata_disk, "8:0");
	fx.disk(std::string(sata_disk) + "/sda2", "8:2");
	fx.write(std::string("/devices/") + sata_disk + "/sda2/partition", "2");
	fx.disk("virtual/block/dm-0", "254:0");
	fx.write("/devices/virtual/block/dm-0/dm/name", "vg-root");
	fx.link("/devices/virtual/block/dm-0/slaves/sda2", std::string("../../../../") + sata_disk + "/sda2");
	Device dm = find_device(plan_on(makedev(254, 0)));
	CHECK(dm.name == "dm-0");
	CHECK(dm.alias == "vg-root");
	CHECK(dm.stats == std::vector<std::string>{fx.root + "/devices/virtual/block/dm-0/stat"});
	CHECK(dm.slaves == std::vector<std::string>{"sda2"});
	CHECK(dm.disks == std::vector<std::string>{"sda"});
	REQUIRE(dm.link);	// one disk below: its link
	CHECK(dm.link->bytes_per_second == doctest::Approx(300e6));

	std::string other = "pci0000:00/0000:00:1f.2/ata2/host1/target1:0:0/1:0:0:0/block/sdb";
	fx.disk(other, "8:16");
	fx.disk("virtual/block/md0", "9:0");
	fx.link("/devices/virtual/block/md0/slaves/sda2", std::string("../../../../") + sata_disk + "/sda2");
	fx.link("/devices/virtual/block/md0/slaves/sdb", "../../../../" + other);
	Device md = find_device(plan_on(makedev(9, 0)));
	CHECK(md.name == "md0");
	CHECK(md.slaves == std::vector<std::string>{"sda2", "sdb"});
	CHECK(md.disks == std::vector<std::string>{"sda", "sdb"});
	CHECK_FALSE(md.link);	// two disks: no one link carries it all

	fx.disk("virtual/block/loop3", "7:3");
	fx.write("/devices/virtual/block/loop3/loop/backing_file", "/var/tmp/disk.img");
	Device loop = find_device(plan_on(makedev(7, 3), EXT4_SUPER_MAGIC, Kind::block));
	CHECK(loop.name == "loop3");
	CHECK(loop.path == "/dev/loop3");
	CHECK(loop.backing_file == "/var/tmp/disk.img");
	CHECK_FALSE(loop.link);
}

TEST_CASE("btrfs: every device of the file system, counters summed, busy the busiest's")
{
	DeviceTree fx;
	REQUIRE_FALSE(fx.root.empty());
	const std::string fsid = "0b7c1a2e-3f4d-4e5f-8a9b-0c1d2e3f4a5b";
	CHECK(btrfs_devices(fsid).reason == "btrfs " + fsid + ": sysfs lists no devices");
	fx.disk("virtual/block/loop0", "7:0", "10 0 2048 5 20 0 4096 9 0 100 14");
	fx.disk(sata_disk, "8:0", "1 0 8 1 2 0 16 1 0 50 2");
	fx.link("/fs/btrfs/" + fsid + "/devices/loop0", "../../../../devices/virtual/block/loop0");
	fx.link("/fs/btrfs/" + fsid + "/devices/sda", std::string("../../../../devices/") + sata_disk);
	Device d = btrfs_devices(fsid);
	CHECK(d.reason == "");
	CHECK(d.name == "loop0+sda");
	CHECK(d.path == "/dev/loop0 /dev/sda");
	REQUIRE(d.stats.size() == 2);
	CHECK_FALSE(d.link);
	std::vector<std::string> before = read_stats(d.stats);
	fx.write("/devices/virtual/block/loop0/stat", "12 0 4096 5 30 0 8192 9 0 900 14");
	fx.write(std::string("/devices/") + sata_disk + "/stat", "3 0 2056 1 4 0 2064 1 0 450 2");
	std::optional<DiskDelta> delta = disk_delta(before, read_stats(d.stats));
	REQUIRE(delta);
	CHECK(delta->reads == 4);
	CHECK(delta->read_bytes == (2048 + 2048) * 512);
	CHECK(delta->write_bytes == (4096 + 2048) * 512);
	CHECK(delta->busy_ms == 800);	// the busiest device, not the sum
}

TEST_CASE("find_device: no block device, with the reason")
{
	DeviceTree fx;
	REQUIRE_FALSE(fx.root.empty());
	dev_t anon = makedev(0, 1048000);	// in no mount table
	CHECK(find_device(plan_on(anon, NFS_SUPER_MAGIC)).reason == "/data/f is on nfs, a network file system: no local block device counts its I/O");
	CHECK(find_device(plan_on(anon, 0x65735546)).reason == "/data/f is on fuse, a FUSE file system without a block device");
	CHECK(find_device(plan_on(anon, TMPFS_MAGIC)).reason == "/data/f is on tmpfs: files in memory, no block device");
	CHECK(find_device(plan_on(makedev(1, 3), TMPFS_MAGIC, Kind::chr)).reason ==
	      "/data/f is a character device: no block layer counts its I/O");
	Device none = find_device(plan_on(anon, 0x794c7630));
	CHECK(none.stats.empty());
	CHECK(none.reason.find("overlayfs (device 0:1048000), which has no block device") != std::string::npos);
}

TEST_CASE("find_device: the queue's write cache, FUA and rotational flags, a loop's dio, a paravirtual disk")
{
	DeviceTree fx;
	REQUIRE_FALSE(fx.root.empty());
	const std::string vda = "pci0000:00/0000:00:02.0/virtio1/block/vda";
	fx.disk(vda, "254:0");
	fx.disk(vda + "/vda1", "254:1");
	fx.write("/devices/" + vda + "/vda1/partition", "1");
	fx.write("/devices/" + vda + "/queue/write_cache", "write back");
	fx.write("/devices/" + vda + "/queue/fua", "0");
	fx.write("/devices/" + vda + "/queue/rotational", "1");
	fx.write("/bus/virtio/drivers/virtio_blk/bind", "");
	fx.link("/devices/pci0000:00/0000:00:02.0/virtio1/driver", "../../../../bus/virtio/drivers/virtio_blk");
	fx.link("/devices/" + vda + "/device", "../../../virtio1");
	Device part = find_device(plan_on(makedev(254, 1)));	// a partition: its disk's queue
	CHECK(part.name == "vda1");
	CHECK(part.write_cache == "write back");
	REQUIRE(part.fua);
	CHECK_FALSE(*part.fua);
	CHECK(part.rotational == std::optional<bool>(true));
	CHECK(part.paravirtual == "virtio_blk");
	CHECK_FALSE(part.loop_dio);	// not a loop device

	fx.disk(sata_disk, "8:0");
	fx.write(std::string("/devices/") + sata_disk + "/queue/write_cache", "write through");
	fx.write(std::string("/devices/") + sata_disk + "/queue/fua", "1");
	Device sda = find_device(plan_on(makedev(8, 0)));
	CHECK(sda.write_cache == "write through");
	CHECK(sda.fua == std::optional<bool>(true));
	CHECK(sda.paravirtual == "");	// a SATA disk on real hardware
	fx.write(std::string("/devices/") + sata_disk + "/queue/write_cache", "maybe");
	CHECK(find_device(plan_on(makedev(8, 0))).write_cache == "");	// not a value the kernel writes: unknown

	fx.disk("virtual/block/loop3", "7:3");
	fx.write("/devices/virtual/block/loop3/loop/backing_file", "/var/tmp/disk.img");
	fx.write("/devices/virtual/block/loop3/loop/dio", "0");
	CHECK(find_device(plan_on(makedev(7, 3))).loop_dio == std::optional<bool>(false));
	fx.write("/devices/virtual/block/loop3/loop/dio", "1");
	CHECK(find_device(plan_on(makedev(7, 3))).loop_dio == std::optional<bool>(true));
}

TEST_CASE("overlay_mount: the mount point, upperdir and lowerdirs of an overlay mount's super options, escapes undone")
{
	std::string tmpl_name = scratch_name("sdb-mountinfo.XXXXXX");
	char *tmpl = tmpl_name.data();
	int fd = mkstemp(tmpl);
	REQUIRE(fd >= 0);
	std::string info =
		"22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
		"98 22 0:52 / /merged rw,relatime - overlay overlay rw,lowerdir=/l,upperdir=/up\\040dir,workdir=/w\n"
		"99 22 0:53 / /other rw,relatime - overlay overlay rw,lowerdir=/l2:/l3,upperdir=/u2,workdir=/w2\n";
	REQUIRE(write(fd, info.data(), info.size()) == static_cast<ssize_t>(info.size()));
	close(fd);
	CHECK(overlay_mount(makedev(0, 52), "/merged", tmpl).upper == "/up dir");
	OverlayMount o = overlay_mount(makedev(0, 53), "/other", tmpl);
	CHECK(o.point == "/other");
	CHECK(o.upper == "/u2");
	CHECK(o.lowers == std::vector<std::string>{"/l2", "/l3"});
	CHECK(overlay_mount(makedev(0, 60), "/other/sub/f", tmpl).upper == "/u2");	// a file's own st_dev: by its path
	CHECK(overlay_mount(makedev(0, 60), "/otherwise/f", tmpl).upper == "");
	CHECK(overlay_mount(makedev(254, 0), "/data/f", tmpl).point == "");	// not an overlay
	unlink(tmpl);
}

TEST_CASE("parse_disk_stat: the kernel's lines of every age, and odd ones")
{
	auto s = parse_disk_stat("  7390917    37586 1196083602  3203393  2284785    32277 2625300072  8524592        0   775188 11790772    19441       46 743729440    60375    22006     2410");
	REQUIRE(s);
	CHECK(s->reads == 7390917);
	CHECK(s->read_sectors == 1196083602);
	CHECK(s->writes == 2284785);
	CHECK(s->write_sectors == 2625300072);
	CHECK(s->io_ticks == 775188);
	CHECK(parse_disk_stat("1 2 3 4 5 6 7 8 9 10 11"));	// before 4.18: 11 fields
	CHECK(parse_disk_stat("1 2 3 4 5 6 7 8 9 10"));
	CHECK_FALSE(parse_disk_stat("1 2 3 4 5 6 7 8 9"));	// no io_ticks
	CHECK_FALSE(parse_disk_stat(""));
	CHECK_FALSE(parse_disk_stat("1 2 3 4 5 6 7 8 -9 10 11"));
	CHECK_FALSE(parse_disk_stat("1 2 3 4 5 6 7 8 9 x 11"));
	CHECK_FALSE(parse_disk_stat("1 2 3 4 5 6 7 8 9 99999999999999999999999 11"));	// past 64 bits
	CHECK(parse_disk_stat("18446744073709551615 0 0 0 0 0 0 0 0 0")->reads == UINT64_MAX);
	CHECK_FALSE(disk_delta({"5 0 10 0 0 0 0 0 0 10"}, {"4 0 10 0 0 0 0 0 0 10"}));	// went backwards: reset
	CHECK_FALSE(disk_delta({"1 0 0 0 0 0 0 0 0 0"}, {""}));
	CHECK_FALSE(disk_delta({}, {}));
}

TEST_CASE("hollow_bytes: holes and unwritten extents, each byte once")
{
	std::string tmpl_name = scratch_name("sdb-holes.XXXXXX", "/var/tmp");
	char *tmpl = tmpl_name.data();
	int fd = mkstemp(tmpl);
	REQUIRE(fd >= 0);
	unlink(tmpl);
	Fd file(fd);
	std::vector<char> data(MiB, 'x');
	REQUIRE(ftruncate(fd, 4 * MiB) == 0);
	CHECK(hollow_bytes(fd, 0, 4 * MiB) == 4 * MiB);	// sparse: all hole
	REQUIRE(pwrite(fd, data.data(), MiB, 0) == static_cast<ssize_t>(MiB));
	REQUIRE(fsync(fd) == 0);
	CHECK(hollow_bytes(fd, 0, 4 * MiB) == 3 * MiB);
	CHECK(hollow_bytes(fd, 0, MiB) == 0);
	CHECK(hollow_bytes(fd, 512 * KiB, 2 * MiB) == MiB);
	if (fallocate(fd, 0, 2 * MiB, MiB) != 0) {
		MESSAGE("fallocate not supported here: unwritten extents untested");
		return;
	}
	CHECK(hollow_bytes(fd, 0, 4 * MiB) == 3 * MiB);	// the fallocate'd MiB reads as zeros too
	CHECK(hollow_bytes(fd, 2 * MiB, 3 * MiB) == MiB);
	REQUIRE(pwrite(fd, data.data(), MiB, 2 * MiB) == static_cast<ssize_t>(MiB));
	REQUIRE(fsync(fd) == 0);
	CHECK(hollow_bytes(fd, 0, 4 * MiB) == 2 * MiB);
}

TEST_CASE("size_arg: what -s takes back")
{
	CHECK(size_arg(GiB) == "1g");
	CHECK(size_arg(3 * MiB) == "3m");
	CHECK(size_arg(MiB + 4 * KiB) == "1028k");
	CHECK(size_arg(1000) == "1000");
	CHECK(parse_size(size_arg(1536 * MiB)) == 1536 * MiB);
}

} // TEST_SUITE("device")
