// SPDX-License-Identifier: GPL-2.0-only
/*
 * Structure-aware random requests against the 9P2000.L server: every
 * message type with plausible and hostile fields (fids that exist or not,
 * names with '/', "..", NUL, over-long; huge counts and offsets; cut-off
 * bodies; lying size fields), split across random iovecs. Whatever comes
 * in, the server must answer with a well-formed reply carrying the request's
 * tag (or defer a lock), never crash (run it under SANITIZE=1), never touch
 * anything outside the share, and keep serving.
 */
#include "tests/unit/check_main.h"
#include "tests/unit/test_p9_client.h"

static unsigned seed_state;

static unsigned rnd(unsigned n)
{
	seed_state = seed_state * 1103515245u + 12345u;
	return (seed_state >> 8) % n;
}

static const char *const names[] = {
	"a", "b", "dir", "file", "..", ".", "", "x/y", "/", "with space", "ctl",
	"a-very-long-name-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	"user.x", "trusted.t",
};

static void put_name(void)
{
	if (rnd(12) == 0) {
		p9_put_str(&W, "a\0b", 3);   /* NUL inside */
		return;
	}
	put_str(names[rnd(sizeof(names) / sizeof(names[0]))]);
}

static uint32_t some_u32(void)
{
	static const uint32_t v[] = { 0, 1, 2, 7, 0644, 0755, 040755, 0100644, 4096,
				      65536, 0x7fffffff, 0xffffffff, P9_NOFID };
	return rnd(4) ? v[rnd(sizeof(v) / sizeof(v[0]))] : (uint32_t)rnd(1u << 30);
}

static uint64_t some_u64(void)
{
	static const uint64_t v[] = { 0, 1, 4096, 1 << 20, INT64_MAX, UINT64_MAX, (uint64_t)INT64_MAX + 1 };
	return v[rnd(sizeof(v) / sizeof(v[0]))];
}

/* Field layouts: f fid, n name, 1/2/4/8 integers, w walk names, d data. */
static const struct {
	uint8_t type;
	const char *fields;
} layouts[] = {
	{ P9_TVERSION, "4n" }, { P9_TATTACH, "ffnn4" }, { P9_TAUTH, "fnn4" }, { P9_TFLUSH, "2" },
	{ P9_TWALK, "ffw" }, { P9_TLOPEN, "f4" }, { P9_TLCREATE, "fn444" }, { P9_TREAD, "f84" },
	{ P9_TWRITE, "f8d" }, { P9_TCLUNK, "f" }, { P9_TREMOVE, "f" }, { P9_TGETATTR, "f8" },
	{ P9_TSETATTR, "f444488888" }, { P9_TREADDIR, "f84" }, { P9_TSTATFS, "f" },
	{ P9_TMKDIR, "fn44" }, { P9_TMKNOD, "fn4444" }, { P9_TSYMLINK, "fnn4" }, { P9_TLINK, "ffn" },
	{ P9_TRENAME, "ffn" }, { P9_TRENAMEAT, "fnfn" }, { P9_TUNLINKAT, "fn4" },
	{ P9_TREADLINK, "f" }, { P9_TFSYNC, "f4" }, { P9_TXATTRWALK, "ffn" },
	{ P9_TXATTRCREATE, "fn84" }, { P9_TLOCK, "f14884n" }, { P9_TGETLOCK, "f1884n" },
	{ 0, "f" }, { 255, "ff" }, { P9_TOPEN, "f1" }, { P9_RREAD, "4" },
};

static void build_random(void)
{
	unsigned k = rnd(sizeof(layouts) / sizeof(layouts[0]));

	begin(layouts[k].type);
	for (const char *f = layouts[k].fields; *f; f++) {
		switch (*f) {
		case 'f': p9_put_u32(&W, rnd(10) ? rnd(8) : some_u32()); break;
		case 'n': put_name(); break;
		case '1': p9_put_u8(&W, (uint8_t)rnd(4)); break;
		case '2': p9_put_u16(&W, (uint16_t)rnd(8)); break;
		case '4': p9_put_u32(&W, some_u32()); break;
		case '8': p9_put_u64(&W, some_u64()); break;
		case 'w': {
			unsigned n = rnd(5) ? rnd(4) : rnd(20);
			p9_put_u16(&W, (uint16_t)n);
			for (unsigned i = 0; i < n; i++)
				put_name();
			break;
		}
		case 'd': {
			uint32_t n = rnd(64);
			p9_put_u32(&W, rnd(8) ? n : some_u32());
			memset(p9_put_reserve(&W, n), 'z', n);
			break;
		}
		}
	}
	if (rnd(10) == 0 && W.pos > P9_HDRSZ)
		W.pos -= 1 + rnd((unsigned)(W.pos - P9_HDRSZ));   /* cut the body short */
}

START_TEST(test_random_requests)
{
	char parent[PATH_MAX], inner[PATH_MAX];
	struct stat before, after;
	struct fs_options o;
	uint32_t ms;
	char v[64];

	/*
	 * Serve root/inner instead, so root is a parent no one else touches:
	 * its mtime and its sentinel file must not change.
	 */
	snprintf(parent, sizeof(parent), "%s", root);
	snprintf(inner, sizeof(inner), "%s/inner", root);
	ck_assert_int_eq(mkdir(inner, 0755), 0);
	mkfile("sentinel", "keep");
	p9_session_destroy(ses);
	p9_server_destroy(srv);
	fs_options_default(&o);
	ck_assert_int_eq(p9_server_create(&srv, inner, &o), 0);
	ck_assert_int_eq(p9_session_create(&ses, srv, BUFSZ), 0);
	ck_assert_int_eq(t_version(65536, "9P2000.L", &ms, v), 0);
	ck_assert_int_eq(t_attach(0, "", 0), 0);
	mkfile("inner/file", "some data");
	path_of(inner, "inner/dir");
	ck_assert_int_eq(mkdir(inner, 0755), 0);
	ck_assert_int_eq(stat(parent, &before), 0);
	seed_state = 12345u + (unsigned)_i;
	for (int iter = 0; iter < 20000; iter++) {
		/* Keep a few fids alive to act on. */
		if (rnd(8) == 0)
			t_attach(rnd(8), "", 0);
		build_random();
		uint32_t size = (uint32_t)W.pos;
		if (rnd(20) == 0)
			size += rnd(3) ? 1 : 1000;               /* a lying size field */
		p9_put_hdr(reqbuf, size, cur_type, cur_tag);
		split = rnd(4) == 0 ? 1 + rnd(9) : 0;
		int n = handle_raw(reqbuf, W.pos);
		split = 0;
		if (n == FS_REQ_DEFERRED)
			continue;    /* a parked lock: answered later or at teardown */
		ck_assert_int_ge(n, (int)P9_HDRSZ);
		struct p9_rbuf r;
		p9_rbuf_init(&r, repbuf, (size_t)n);
		ck_assert_uint_eq(p9_get_u32(&r), (uint32_t)n);
		uint8_t t = p9_get_u8(&r);
		ck_assert(t == P9_RLERROR || t == (uint8_t)(cur_type + 1));
		ck_assert_uint_eq(p9_get_u16(&r), cur_tag);
		if (t == P9_RLERROR) {
			uint32_t e = p9_get_u32(&r);
			ck_assert(e > 0 && e < 4096);
		}
		/* A Tversion that failed or asked for another dialect: start again. */
		if (p9_session_msize(ses) == 0) {
			ck_assert_int_eq(t_version(65536, "9P2000.L", &ms, v), 0);
			ck_assert_int_eq(t_attach(0, "", 0), 0);
		}
	}
	ck_assert_int_eq(stat(parent, &after), 0);
	ck_assert(before.st_mtim.tv_sec == after.st_mtim.tv_sec &&
		  before.st_mtim.tv_nsec == after.st_mtim.tv_nsec);
	char buf[16];
	FILE *fp = fopen(strcat(parent, "/sentinel"), "r");
	ck_assert_ptr_nonnull(fp);
	ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), fp));
	fclose(fp);
	ck_assert_str_eq(buf, "keep");
	/* Still serving normally. */
	ck_assert_int_eq(t_attach(9, "", 0), 0);
	ck_assert_int_eq(t_getattr(9, NULL, NULL, NULL), 0);
}
END_TEST

static Suite *p9fuzz_suite(void)
{
	Suite *s = suite_create("p9fuzz");
	TCase *tc = tcase_create("random");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_random_requests, 0, 4);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_main(p9fuzz_suite());
}
