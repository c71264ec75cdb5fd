// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/lttng as lttng-sessiond finds it: root only, the LTTng 2.x version
 * queries under their documented command numbers, ENOTTY for the rest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>

#include "kselftest_harness.h"

/* kselftest's 30 s per case is too short for the debug kernel under TCG. */
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 300

/* Numbers as lttng-tools 2.13.9 hard-codes them (fact sheet, section 2.2). */
#define TRACER_VERSION		0x800CF646u
#define TRACER_ABI_VERSION	0x8008F64Bu
#define OLD_TRACER_VERSION	0x800CF641u

struct tracer_version {
	uint32_t major, minor, patchlevel;
} __attribute__((packed));

struct tracer_abi_version {
	uint32_t major, minor;
} __attribute__((packed));

FIXTURE(proc_lttng) {
	int fd;
};

FIXTURE_SETUP(proc_lttng)
{
	if (access("/proc/lttng", F_OK))
		SKIP(return, "/proc/lttng is absent (tracer not loaded)");
	self->fd = open("/proc/lttng", O_RDWR);
	ASSERT_LE(0, self->fd) TH_LOG("open: %s", strerror(errno));
}

FIXTURE_TEARDOWN(proc_lttng)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(proc_lttng, mode_is_0600_root)
{
	struct stat st;

	ASSERT_EQ(0, fstat(self->fd, &st));
	EXPECT_TRUE(S_ISREG(st.st_mode));
	EXPECT_EQ(0600, st.st_mode & 07777);
	EXPECT_EQ(0, st.st_uid);
	EXPECT_EQ(0, st.st_gid);
}

TEST_F(proc_lttng, tracer_version)
{
	struct tracer_version v;

	memset(&v, 0xa5, sizeof(v));
	ASSERT_EQ(0, ioctl(self->fd, TRACER_VERSION, &v));
	EXPECT_EQ(2, v.major);
	EXPECT_EQ(13, v.minor);
	EXPECT_GT(100, v.patchlevel);
}

TEST_F(proc_lttng, tracer_abi_version)
{
	struct tracer_abi_version v;

	memset(&v, 0xa5, sizeof(v));
	ASSERT_EQ(0, ioctl(self->fd, TRACER_ABI_VERSION, &v));
	EXPECT_EQ(2, v.major);
	EXPECT_EQ(6, v.minor);
}

TEST_F(proc_lttng, version_to_bad_pointer_is_efault)
{
	EXPECT_EQ(-1, ioctl(self->fd, TRACER_VERSION, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, TRACER_ABI_VERSION, (void *)1));
	EXPECT_EQ(EFAULT, errno);
}

TEST_F(proc_lttng, unknown_commands_are_enotty)
{
	const unsigned int cmds[] = {
		OLD_TRACER_VERSION, _IO(0xF6, 0xff), _IO('T', 0x01),
		TRACER_VERSION ^ 0x00010000u, 0, 0xffffffffu,
	};
	char buf[64];
	unsigned int i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		errno = 0;
		EXPECT_EQ(-1, ioctl(self->fd, cmds[i], buf)) TH_LOG("cmd %#x", cmds[i]);
		EXPECT_EQ(ENOTTY, errno) TH_LOG("cmd %#x", cmds[i]);
	}
}

TEST_F(proc_lttng, read_and_write_are_refused)
{
	char c = 0;

	EXPECT_GT(0, read(self->fd, &c, 1));
	EXPECT_GT(0, write(self->fd, &c, 1));
}

TEST_F(proc_lttng, unprivileged_open_is_eacces)
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd;

		if (setgid(65534) || setuid(65534))
			_exit(2);
		fd = open("/proc/lttng", O_RDONLY);
		_exit(fd < 0 && errno == EACCES ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/*
 * Root without CAP_SYS_ADMIN: the file's mode lets uid 0 in, the driver
 * must not.  The child drops the capability from its effective and
 * permitted sets (capset), keeping every other one.
 */
TEST_F(proc_lttng, open_without_cap_sys_admin_is_eperm)
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct __user_cap_header_struct hdr = {
			.version = _LINUX_CAPABILITY_VERSION_3,
		};
		struct __user_cap_data_struct d[2];
		int fd;

		if (syscall(SYS_capget, &hdr, d))
			_exit(2);
		d[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective &= ~CAP_TO_MASK(CAP_SYS_ADMIN);
		d[CAP_TO_INDEX(CAP_SYS_ADMIN)].permitted &= ~CAP_TO_MASK(CAP_SYS_ADMIN);
		if (syscall(SYS_capset, &hdr, d))
			_exit(3);
		/* Still root, still CAP_DAC_OVERRIDE: only the driver refuses. */
		if (getuid() != 0 || access("/proc/lttng", R_OK | W_OK))
			_exit(4);
		fd = open("/proc/lttng", O_RDWR);
		_exit(fd < 0 && errno == EPERM ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
