// SPDX-License-Identifier: GPL-2.0-only
/*
 * crun's handler-plugin interface, as crun 1.8.1 defines it (its
 * src/libcrun/custom-handler.h and container.h, stated here in our own
 * words: Debian ships no crun development header). crun dlopen()s every
 * file of its handlers directory, calls run_oci_handler_get_handler() and
 * keeps the table it returns. The layout changed between crun versions, so
 * dist/crun/crun.mk builds this plugin only against a crun that says it is
 * CRUN_HANDLER_ABI (crun --version), and refuses any other with a message.
 *
 * Only what the plugin touches is spelled out: the handler table (whole, in
 * order), the error object crun frees, the phases, and the leading members
 * of the context and container objects up to the last one read here. The
 * OCI configuration objects (libocispec's) are opaque: the plugin reads the
 * configuration's JSON itself.
 */
#ifndef STAINLESS_CRUN_HANDLER_H
#define STAINLESS_CRUN_HANDLER_H

#include <stdbool.h>
#include <sys/types.h>

#define CRUN_HANDLER_ABI "1.8.1"

/* crun releases an error with free(e->msg); free(e). */
struct libcrun_error_s {
	int status;
	char *msg;
};
typedef struct libcrun_error_s *libcrun_error_t;

enum handler_configure_phase {
	HANDLER_CONFIGURE_BEFORE_MOUNTS = 1,	/* in the container's process, before its mounts */
	HANDLER_CONFIGURE_AFTER_MOUNTS,		/* its mounts made, before pivot_root */
	HANDLER_CONFIGURE_MOUNTS,		/* while the mounts are made */
};

/* struct libcrun_context_s, up to handler. */
struct libcrun_context_s {
	const char *state_root;
	const char *id;
	const char *bundle;
	const char *console_socket;
	const char *pid_file;
	const char *notify_socket;
	const char *handler;
	/* more members follow; none is read here */
};
typedef struct libcrun_context_s libcrun_context_t;

/* struct libcrun_container_s, up to config_file_content. */
struct libcrun_container_s {
	void *container_def;		/* runtime_spec_schema_config_schema * */
	uid_t host_uid;
	gid_t host_gid;
	uid_t container_uid;
	gid_t container_gid;
	char *config_file;		/* the path crun loaded, or NULL */
	char *config_file_content;	/* the JSON, when loaded from memory */
	/* more members follow; none is read here */
};
typedef struct libcrun_container_s libcrun_container_t;

/* The table, member for member as crun 1.8.1 declares it. */
struct custom_handler_s {
	const char *name;
	const char *feature_string;	/* printed as +FEATURE by crun --version */
	const char *alias;
	int (*load)(void **cookie, libcrun_error_t *err);
	int (*unload)(void *cookie, libcrun_error_t *err);
	/* In place of execv() of the container's process; does not return on success. */
	int (*run_func)(void *cookie, libcrun_container_t *container,
			const char *pathname, char *const argv[]);
	/* In place of execv() for crun exec. */
	int (*exec_func)(void *cookie, libcrun_container_t *container,
			 const char *pathname, char *const argv[]);
	int (*configure_container)(void *cookie, enum handler_configure_phase phase,
				   libcrun_context_t *context, libcrun_container_t *container,
				   const char *rootfs, libcrun_error_t *err);
	int (*can_handle_container)(libcrun_container_t *container, libcrun_error_t *err);
	int (*modify_oci_configuration)(void *cookie, libcrun_context_t *context,
					void *def, libcrun_error_t *err);
};

_Static_assert(sizeof(struct custom_handler_s) == 3 * sizeof(char *) + 7 * sizeof(void (*)(void)),
	       "crun 1.8.1's handler table: three strings and seven functions");

/* The one symbol crun looks up in a plugin. */
struct custom_handler_s *run_oci_handler_get_handler(void);

#endif
