/* x86-64 syscall names (the numbers the probes record). */
#ifndef ADAPTRM_SYSCALL_NAMES_H
#define ADAPTRM_SYSCALL_NAMES_H
/* NULL for an unknown number. */
const char *syscall_name(unsigned nr);
#endif
