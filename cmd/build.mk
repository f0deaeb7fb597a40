# SPDX-License-Identifier: GPL-2.0-only
# cmd/: each command put together -- its command line read, the sandbox
# entered, the pieces of the floors below composed and run (cmd/main.c,
# the dispatch, is linked only into the binary).
LIB_SRCS += cmd/opt_table.c cmd/opt_doc.c cmd/opt_common.c cmd/help.c cmd/mount_helper.c \
            cmd/run_table.c cmd/vhost_user_table.c cmd/p9_serve_cli.c cmd/fuse_mount_cli.c \
            cmd/run.c cmd/run_cli.c cmd/fuse_mount.c cmd/p9_serve.c \
            cmd/vhost_user_fs.c cmd/vhost_user_cli.c cmd/vhost_user_opts.c \
            cmd/exec_wire.c cmd/exec_table.c cmd/exec_cli.c cmd/exec.c cmd/exec_relay.c
UNIT_TESTS += test_opt_table test_cli test_cli_shares test_vhost_user_cli test_exec_wire

# exec's guest init, static, packed alone into a cpio that the binary
# carries (cmd/exec_initramfs.S): the guest side of cmd/exec_wire.c.
EXEC_INIT_SRCS := guest-images/exec-init.c cmd/exec_wire.c
$(O)/guest/exec-init: $(EXEC_INIT_SRCS) cmd/exec_wire.h
	@mkdir -p $(dir $@)
	$(call quiet,CCSTAT,$@)$(CC) -static -Os -s -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror \
		-Wno-unused-parameter -I. -o $@ $(EXEC_INIT_SRCS)
$(O)/guest/exec-initramfs.cpio: $(O)/guest/exec-init guest-images/mkcpio
	$(call quiet,CPIO,$@)printf '%s\n' 'dir /dev 0755' 'nod /dev/console 0600 c 5 1' \
		'dir /newroot 0755' 'file /init 0755 $(O)/guest/exec-init' | guest-images/mkcpio >$@.tmp && mv $@.tmp $@
$(O)/cmd/exec_initramfs.o: cmd/exec_initramfs.S $(O)/guest/exec-initramfs.cpio
	@mkdir -p $(dir $@)
	$(call quiet,AS,$<)$(CC) -c -DEXEC_INITRAMFS='"$(O)/guest/exec-initramfs.cpio"' -o $@ $<
EXTRA_LIB_OBJS += $(O)/cmd/exec_initramfs.o
