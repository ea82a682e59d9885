// context: what a result read on its own, away from the terminal it ran
// on, must say of where it came from (SPEC "Results people keep": every
// page opens with it): the host, the command line and when it started
// (Invocation, set once by sdb_main), the kernel, and for a run the
// target, its file system and the device under it (model, size,
// rotational).  One JSON object, "context", in the documents of a run, a
// quick suite, a sweep, a merge and a comparison.
#pragma once

#include "base.h"
#include "sys.h"
#include "json.h"

#include <cinttypes>
#include <cstdint>
#include <string>
#include <string_view>

#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>

namespace {

// This sdb's command line, each word quoted as a shell needs it, and the
// real-time clock when it started.
struct Invocation {
	std::string command_line;
	std::int64_t started_unix_ns = 0;
};
Invocation g_invocation;

void record_invocation(int argc, char *argv[])
{
	std::string line = "sdb";	// argv[0] may be a path, or a name the user never typed
	for (int i = 1; i < argc; i++) {
		std::string_view word = argv[i];
		bool plain = !word.empty() && word.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
								     "0123456789_./:=,@%+-") == std::string_view::npos;
		line += " " + (plain ? std::string(word) : shell_quote(word));
	}
	g_invocation = {line, realtime_ns()};
}

std::string kernel_name()
{
	utsname u {};
	return uname(&u) == 0 ? std::string(u.sysname) + " " + u.release + " " + u.machine : std::string();
}

// The device under path (the device itself for a block device; its
// directory's for a file not made yet): {"name", "model", "bytes",
// "rotational"}, null where there is no block device (tmpfs, an overlay's
// anonymous device).  The model is the disk's own (SCSI, SATA, NVMe) or
// the driver of one that has none (virtio_blk).
std::string json_device_of(dev_t dev)
{
	std::string name, disk = disk_dir(dev, &name);
	if (disk.empty())
		return "null";
	std::string model = read_line(disk + "/device/model");
	while (!model.empty() && model.back() == ' ')
		model.pop_back();
	if (model.empty())
		model = base_name(real_path(disk + "/device/driver"));
	std::string sectors = read_line(disk + "/size"), rotational = read_line(disk + "/queue/rotational");
	return format("{\"name\": %s, \"model\": %s, \"bytes\": %s, \"rotational\": %s}", json_string(name).c_str(),
		      model.empty() ? "null" : json_string(model).c_str(),
		      sectors.empty() ? "null" : std::to_string(std::strtoull(sectors.c_str(), nullptr, 10) * 512).c_str(),
		      rotational == "1" ? "true" : rotational == "0" ? "false" : "null");
}

// "context": the host, the command line, when it started, the kernel; with a target
// (a path as given; "" for a merge or a comparison) its file system and
// device.
std::string json_context(const std::string &target)
{
	utsname u {};
	std::string doc = format("{\"host\": %s, \"command_line\": %s, \"started_unix\": %s, \"kernel\": %s",
				 uname(&u) == 0 ? json_string(u.nodename).c_str() : "null", json_string(g_invocation.command_line).c_str(),
				 g_invocation.started_unix_ns ? json_unix(g_invocation.started_unix_ns).c_str() : "null",
				 json_string(kernel_name()).c_str());
	if (target.empty())
		return doc + ", \"target\": null, \"filesystem\": null, \"device\": null}";
	struct stat st {};
	struct statfs sfs {};
	std::string at = stat(target.c_str(), &st) == 0 ? target : dirname_of(target);
	if (at != target && stat(at.c_str(), &st) != 0)
		return doc + ", \"target\": " + json_string(target) + ", \"filesystem\": null, \"device\": null}";
	bool device = S_ISBLK(st.st_mode) || S_ISCHR(st.st_mode);
	std::string fs = S_ISBLK(st.st_mode) ? "none (block device)" : S_ISCHR(st.st_mode) ? "none (character device)"
		       : statfs(at.c_str(), &sfs) == 0 ? mounted_fs_type(st.st_dev, static_cast<std::uint32_t>(sfs.f_type))
						       : "";
	return doc + ", \"target\": " + json_string(target) + ", \"filesystem\": " + (fs.empty() ? "null" : json_string(fs)) +
	       ", \"device\": " + (S_ISCHR(st.st_mode) ? "null" : json_device_of(device ? st.st_rdev : st.st_dev)) + "}";
}

} // namespace
