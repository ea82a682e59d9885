// outputs: the files sdb writes besides its targets (--html's page,
// --prom's metrics, --probe's --journal), each checked before the run
// starts (check_outputs), and the page and the metrics written from a
// mode's JSON document (write_outputs), so that an unusable path costs no run and
// a page never replaces what is not sdb's.  The rule is the targets' rule
// (plan.h): a new file, a file sdb made (its owner_xattr, or a page's
// generator line or the metrics' first line where the file system keeps no attributes), or an empty
// one; anything else only with --force; and never, --force or not, a file
// the same command reads or writes (a target, a --merge or --compare
// input), a file another user of the system depends on (it backs a loop
// device, it is mounted, a FUSE daemon serves it: file_users()), or a
// path on a kernel pseudo-file system.  Offers check_outputs() to sdb.cpp
// and write_outputs() to the modes.
#pragma once

#include "base.h"
#include "options.h"
#include "guard.h"
#include "plan.h"
#include "html.h"
#include "prom.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/xattr.h>
#include <unistd.h>

namespace {

// Where a path would be: its directory resolved, then its last name; two
// paths that do not exist yet are the same place when these agree.
std::string place_of(const std::string &path)
{
	std::string dir = dirname_of(path);
	std::string name = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
	char real[PATH_MAX];
	return (realpath(dir.c_str(), real) ? std::string(real) : dir) + "/" + name;
}

// The files this command reads or writes, by the names it was given: -f
// (and FILE.0 ... FILE.N-1 of a run with -j), the --merge and --compare
// inputs.  With --hosts, -f names a path on the hosts, not here.
std::vector<std::string> files_of_command(const Options &o)
{
	std::vector<std::string> files;
	if (!o.file.empty() && o.hosts.empty()) {
		files.push_back(o.file);
		for (unsigned i = 0; i < o.threads && i < 4096; ++i)
			files.push_back(o.file + "." + std::to_string(i));
	}
	for (const std::vector<std::string> *list : {&o.merge_files, &o.compare_files})
		for (const std::string &f : *list)
			if (f != "-")
				files.push_back(f);
	return files;
}

// Does an existing page-or-file carry sdb's mark: the attribute, or, on a
// file system without attributes, a page's generator line near its start?
bool made_by_sdb(int fd)
{
	char mark[16];
	if (fgetxattr(fd, owner_xattr, mark, sizeof mark) >= 0)
		return true;
	char head[512];
	ssize_t n = pread(fd, head, sizeof head - 1, 0);
	if (n <= 0)
		return false;
	head[n] = '\0';
	return std::strstr(head, "<meta name=\"generator\" content=\"sdb ") != nullptr ||
	       std::strncmp(head, prom_mark, sizeof prom_mark - 1) == 0;
}

// May sdb write the output file `path` (for option `what`, "--html" or "--prom")?
// Every failure is a usage error: the command as given cannot run.
Error check_output(const char *what, const std::string &path, const Options &o)
{
	const char *p = path.c_str();
	std::string dir = dirname_of(path);
	struct stat d {};
	if (stat(dir.c_str(), &d) != 0)
		return usage_error("%s %s: %s: %s", what, p, dir.c_str(), std::strerror(errno));
	if (!S_ISDIR(d.st_mode))
		return usage_error("%s %s: %s is not a directory", what, p, dir.c_str());
	struct statfs sfs {};
	if (statfs(dir.c_str(), &sfs) == 0)
		if (Error e = refuse_kernel_fs(sfs, path))
			return usage_error("%s %s", what, e.msg.c_str());
	std::string temp = path + ".sdb-tmp";
	struct stat t {};
	if (lstat(temp.c_str(), &t) == 0)
		return usage_error("%s %s: %s exists (left by an sdb that was stopped while writing it?): "
				   "remove it, or give another name", what, p, temp.c_str());
	struct stat st {};
	bool exists = lstat(path.c_str(), &st) == 0;
	if (!exists && errno != ENOENT)
		return usage_error("%s %s: %s", what, p, std::strerror(errno));
	std::string here = place_of(path);
	for (const std::string &f : files_of_command(o)) {
		struct stat other {};
		bool same = exists ? stat(f.c_str(), &other) == 0 && identity_of(other) == identity_of(st)
				   : place_of(f) == here;
		if (same)
			return usage_error("%s %s: this command also %s it: a page never replaces its own input or target",
					   what, p, std::find(o.merge_files.begin(), o.merge_files.end(), f) != o.merge_files.end() ||
					   std::find(o.compare_files.begin(), o.compare_files.end(), f) != o.compare_files.end()
						   ? "reads" : "uses");
	}
	if (!exists)
		return {};
	if (S_ISLNK(st.st_mode))
		return usage_error("%s %s: a symbolic link: sdb writes a page only in place of a regular file", what, p);
	if (S_ISDIR(st.st_mode))
		return usage_error("%s %s: %s", what, p, std::strerror(EISDIR));
	if (!S_ISREG(st.st_mode))
		return usage_error("%s %s: not a regular file: refusing to replace it", what, p);
	Fd fd(open(p, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC));
	if (!fd)
		return usage_error("%s %s: %s", what, p, std::strerror(errno));
	Survey others = survey();
	if (!others.blind.empty())
		return usage_error("%s %s: cannot tell whether it is in use: %s; refusing to replace it, even with --force",
				   what, p, others.blind.c_str());
	std::string users = file_users(st, 0, others, holders_of(st, others));
	if (!users.empty())
		return usage_error("%s %s is in use (%s): refusing to replace it, even with --force", what, p, users.c_str());
	if (o.force || st.st_size == 0 || made_by_sdb(fd.get()))
		return {};
	return usage_error("%s %s exists and sdb did not write it: add --force to replace it "
			   "(sdb replaces only its own pages and empty files)", what, p);
}

// --probe's --journal PATH: always a new file, in a directory that exists
// (the journal is appended in place, so no file is ever replaced).
Error check_journal(const std::string &path)
{
	std::string dir = dirname_of(path);
	struct stat d {};
	if (stat(dir.c_str(), &d) != 0)
		return usage_error("--journal %s: %s: %s", path.c_str(), dir.c_str(), std::strerror(errno));
	if (!S_ISDIR(d.st_mode))
		return usage_error("--journal %s: %s is not a directory", path.c_str(), dir.c_str());
	struct statfs sfs {};
	if (statfs(dir.c_str(), &sfs) == 0)
		if (Error e = refuse_kernel_fs(sfs, path))
			return usage_error("--journal %s", e.msg.c_str());
	struct stat st {};
	if (lstat(path.c_str(), &st) == 0)
		return usage_error("--journal %s: exists: a journal is always a new file (sdb --restore %s, if it is one)",
				   path.c_str(), shell_quote(path).c_str());
	return {};
}

// Every output path of the command, before any I/O.
Error check_outputs(const Options &o)
{
	if (!o.html.empty())
		if (Error e = check_output("--html", o.html, o))
			return e;
	if (!o.prom.empty())
		if (Error e = check_output("--prom", o.prom, o))
			return e;
	if (!o.journal.empty())
		return check_journal(o.journal);
	return {};
}

// --html's page and --prom's metrics of a mode's JSON document: both are
// attempted; the first error is returned.
Error write_outputs(const Options &o, const std::string &doc)
{
	Error first;
	if (!o.html.empty())
		first = write_html(o.html, doc);
	if (!o.prom.empty())
		if (Error e = write_prom(o.prom, doc); e && !first)
			first = e;
	return first;
}

} // namespace
