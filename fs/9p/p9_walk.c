// SPDX-License-Identifier: GPL-2.0-only
/*
 * Twalk. A walk resolves one component at a time beneath the fd the fid
 * holds (fs_open_beneath: no symlink following, no magic links, no
 * escape), and ".." is the server's business: it never climbs above the
 * share root.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs/9p/p9_impl.h"
#include "fs/resolve.h"

/*
 * The parent of a directory that is not the root. A host process may have
 * moved the directory out of the share since it was walked to, so check
 * that climbing from the parent reaches the root before "/": EXDEV
 * otherwise, the answer openat2 gives for a beneath escape.
 */
static int walk_dotdot(struct p9_server *srv, int cur, int *out)
{
	struct stat st, pst;
	int fd, probe, up;

	fd = openat(cur, "..", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	probe = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (probe < 0) {
		close(fd);
		return -errno;
	}
	for (int depth = 0; depth < PATH_MAX / 2; depth++) {
		if (fstat(probe, &st) < 0)
			break;
		if (p9_is_root(srv, &st)) {
			close(probe);
			*out = fd;
			return 0;
		}
		up = openat(probe, "..", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (up < 0)
			break;
		close(probe);
		probe = up;
		if (fstat(probe, &pst) < 0 || (pst.st_dev == st.st_dev && pst.st_ino == st.st_ino))
			break;       /* reached "/" without passing the root */
	}
	close(probe);
	close(fd);
	return -EXDEV;
}

/*
 * One element of a walk from directory cur: *next is a new O_PATH fd on
 * the element (st is clobbered on "..").
 */
static int walk_step(struct p9_session *s, int cur, const struct p9_str *el,
		     struct stat *st, int *next)
{
	char name[NAME_MAX + 1];
	int err;

	if (p9_str_eq(el, ".")) {
		/* diod's tools walk "." when listing: the same directory. */
		*next = fcntl(cur, F_DUPFD_CLOEXEC, 0);
		return *next < 0 ? -errno : 0;
	}
	if (p9_str_eq(el, "..")) {
		if (fstat(cur, st) < 0)
			return -errno;
		return p9_is_root(s->srv, st) ? -EXDEV : walk_dotdot(s->srv, cur, next);
	}
	err = fs_name_check(el->s, el->len);
	if (err)
		return err;
	memcpy(name, el->s, el->len);
	name[el->len] = '\0';
	*next = fs_open_beneath(cur, name, O_PATH, 0);
	return *next < 0 ? *next : 0;
}

int p9_op_walk(struct p9_msg *m)
{
	struct p9_session *s = m->s;
	uint32_t fid = p9_get_u32(&m->in);
	uint32_t newfid = p9_get_u32(&m->in);
	uint16_t nwname = p9_get_u16(&m->in);
	struct p9_str names[P9_MAXWELEM];
	struct p9_fid *f, *nf;
	struct p9_qid qids[P9_MAXWELEM];
	struct stat st;
	int err = 0, cur, next = -1;
	uint16_t i;

	if (p9_rbuf_error(&m->in))
		return -EPROTO;
	if (nwname > P9_MAXWELEM)
		return -EINVAL;
	for (i = 0; i < nwname; i++)
		p9_get_str(&m->in, &names[i]);
	if (p9_rbuf_error(&m->in))
		return -EPROTO;
	f = p9_fid_get_file(s, fid, &err);
	if (!f)
		return err;
	if (newfid != fid && p9_fid_get(s, newfid))
		return -EEXIST;
	/* Names beneath a directory moved out of the share are not the share's. */
	if (nwname && S_ISDIR(f->mode) && (err = p9_dir_inside(s, f->pfd)) < 0)
		return err;
	/* The fd the walk ends on is kept by newfid: charged now, before any work. */
	cur = p9_fd_dup(s, f->pfd);
	if (cur < 0)
		return cur;
	st.st_mode = f->mode;
	for (i = 0; i < nwname; i++) {
		if (!S_ISDIR(st.st_mode)) {
			err = -ENOTDIR;
			break;
		}
		err = walk_step(s, cur, &names[i], &st, &next);
		if (err)
			break;
		close(cur);  /* its charge passes to next */
		cur = next;
		err = p9_qid_of_fd(s, cur, &qids[i], &st);
		if (err)
			break;
	}
	if (err && i == 0) {
		p9_fd_close(s, cur);
		return err;
	}
	if (i == nwname) {
		/* Whole walk done: newfid names the result (replacing fid if equal). */
		err = p9_fid_newfid(s, f, fid, newfid, &nf);
		if (err) {
			p9_fd_close(s, cur);
			return err;
		}
		nf->pfd = cur;
		nf->mode = st.st_mode;
	} else {
		p9_fd_close(s, cur);  /* partial walk: the qids so far, newfid untouched */
	}
	p9_put_u16(&m->out, i);
	for (uint16_t k = 0; k < i; k++)
		p9_put_qid(&m->out, &qids[k]);
	return 0;
}
