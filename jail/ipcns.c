/*
 * ipcns.c - "private-ipc yes": System V message queues, semaphores and
 * shared memory, and POSIX message queues, of the program's own (an IPC
 * namespace). None of them is reached by a path Landlock sees: without
 * it, msgctl, semctl and shmctl(IPC_RMID) and mq_unlink remove the host's
 * objects (a database's shared memory, a daemon's queue) and mq_open makes
 * new ones, within what IPC permissions allow (as root: everything).
 * Making the namespace needs CAP_SYS_ADMIN: as root, or inside the user
 * namespace of net isolated (mountns_possible() says).
 */
#ifdef __linux__

#include <sched.h>

#include "layers.h"

int ipcns_apply(char *err, size_t errsize)
{
	if (unshare(CLONE_NEWIPC) < 0)
		return jail_fail(err, errsize, "unable to create an IPC namespace");
	return 0;
}

#endif /* __linux__ */
