// SPDX-License-Identifier: GPL-3.0-or-later
/* What the calling thread had the block layer read for it: read_bytes of
 * /proc/thread-self/io (every read bio the thread submitted, its syscalls'
 * metadata reads included; nothing served from the page cache). Growth
 * means the thread's work went to a disk: a cold cache. */
#ifndef ADAPTRM_TASKIO_H
#define ADAPTRM_TASKIO_H
#include <stdint.h>

/* The count, or -1 where the kernel does not keep it (no procfs, no
 * CONFIG_TASK_IO_ACCOUNTING) or no fd could be opened. */
int64_t taskio_read_bytes(void);

/* The read_bytes field of the text of an io file (pure, for tests); -1 if
 * it is not there. */
int64_t taskio_parse_read_bytes(const char *text);

#endif
