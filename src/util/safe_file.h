/* safe_file.h — files a run creates beside a path it was given, in a
 * directory others may write to as well (a shared results directory, /tmp):
 * the temporary file a report or the cost table is written to before it is
 * renamed into place, and a lock file. Neither ever follows a symbolic link
 * planted at its name: a temporary file is always a new file (O_CREAT |
 * O_EXCL | O_NOFOLLOW, at a name no one can guess in advance), and a lock
 * file is opened with O_NOFOLLOW and must be a regular file (issue 21: a
 * symlink at "r.json.tmp.PID" used to get its target overwritten). */
#ifndef KC_SAFE_FILE_H
#define KC_SAFE_FILE_H
#include <stddef.h>

/* Creates a new, empty file "PATH.tmp.PID.XXXXXXXX" (8 random hex digits)
 * beside path, mode 0666 less the umask, never following a symbolic link and
 * never reusing an existing file; its name into tmp. Returns the open fd (O_WRONLY,
 * close-on-exec), or -1 with errno set (ENAMETOOLONG when the name does not
 * fit in tmp). */
int kc_temp_beside(const char *path, char *tmp, size_t cap);

/* Opens (creating it when missing, mode 0666 less the umask) the lock file
 * at path for reading and writing, not close-on-exec (cloexec 0: a lock that
 * must survive an exec of this process) or close-on-exec (cloexec 1).
 * Returns the fd, or -1 with the reason in err: a symbolic link ("... is a
 * symbolic link: refusing to follow it; remove it (a lock file is kcontract's
 * own, a plain file)"), something other than a regular file, or the open's
 * error. */
int kc_lock_file_open(const char *path, int cloexec, char *err, size_t cap);
#endif
