// SPDX-License-Identifier: GPL-3.0-or-later
/* The engine's per-entry system calls, issued inline: through a wrapper
 * function, the ret after the syscall mispredicts on CPUs whose return stack
 * does not survive the kernel's return, and the same calls cost measurably
 * more (docs/lab/log.md#inline-system-calls).
 *
 * So these must stay static inline, and the functions that call them in a
 * loop must be inlined into that loop. They return the result or -errno,
 * like the kernel, and never touch errno. Other architectures go through
 * glibc and get the same contract (x32 too). */
#ifndef ADAPTRM_RAWSYS_H
#define ADAPTRM_RAWSYS_H

#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline long rawsys3(long nr, long a, long b, long c)
{
#if defined(__x86_64__) && !defined(__ILP32__)
	long ret;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return ret;
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	__asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
	return x0;
#else
	long ret = syscall(nr, a, b, c);
	return ret == -1 ? -errno : ret;
#endif
}

/* openat(2) without O_CREAT: the fd or -errno */
static inline int sys_openat(int dirfd, const char *name, int flags)
{
	return (int)rawsys3(SYS_openat, dirfd, (long)name, flags);
}

static inline int sys_close(int fd)
{
	return (int)rawsys3(SYS_close, fd, 0, 0);
}

/* fstat(2): 0 or -errno. x86-64 and arm64 glibc's struct stat is the
 * kernel's; anywhere else this goes through glibc (see rawsys3). */
static inline int sys_fstat(int fd, struct stat *st)
{
#if ((defined(__x86_64__) && !defined(__ILP32__)) || defined(__aarch64__)) && \
	!defined(__clang_analyzer__) /* the analyzer cannot see asm fill *st */
	return (int)rawsys3(SYS_fstat, fd, (long)st, 0);
#else
	return fstat(fd, st) == 0 ? 0 : -errno;
#endif
}

/* unlinkat(2): 0 or -errno */
static inline int sys_unlinkat(int dirfd, const char *name, int flags)
{
	return (int)rawsys3(SYS_unlinkat, dirfd, (long)name, flags);
}

/* getdents64(2): bytes read, 0 at the end, or -errno */
static inline long sys_getdents64(int fd, void *buf, size_t size)
{
#ifdef __clang_analyzer__ /* the analyzer cannot see asm fill *buf */
	long n = getdents64(fd, buf, size);
	return n >= 0 ? n : -errno;
#else
	return rawsys3(SYS_getdents64, fd, (long)buf, (long)size);
#endif
}

#endif
