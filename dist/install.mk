# SPDX-License-Identifier: GPL-2.0-only
# make install / make uninstall, honouring PREFIX (default /usr/local) and
# DESTDIR (a staging root: paths written into the installed files are
# PREFIX's, without DESTDIR). What goes where:
#   $(BINDIR)/stainless
#   $(LIBEXECDIR)/stainless-virtiofsd   a link to it: the binary under that
#       name is vhost-user-fs (libexec: a system virtiofsd in bin stays)
#   $(SBINDIR)/mount.fuse.stainless     a link to it: mount(8)'s helper for
#       `mount -t fuse.stainless` and fstab lines (cmd/mount_helper.h)
#   $(MANDIR)/man1/stainless.1, stainless-virtiofsd.1, and one page per
#       command (stainless-run.1 ...), written from the option tables
#   $(QEMUDATADIR)/vhost-user/50-stainless-virtiofsd.json   QEMU's vhost-user
#       descriptor (QEMU and libvirt read /usr/share/qemu/vhost-user and
#       /etc/qemu/vhost-user: with PREFIX=/usr/local it is only a sample)
#   $(UNITDIR)/stainless-virtiofsd@.socket, stainless-virtiofsd@.service
#   $(BASHCOMPDIR)/stainless
PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
SBINDIR     ?= $(PREFIX)/sbin
LIBEXECDIR  ?= $(PREFIX)/libexec
DATADIR     ?= $(PREFIX)/share
MANDIR      ?= $(DATADIR)/man
QEMUDATADIR ?= $(DATADIR)/qemu
UNITDIR     ?= $(PREFIX)/lib/systemd/system
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
INSTALL     ?= install

# The commands with a man page and a completion written from their tables.
DOC_COMMANDS := run exec fuse-mount 9p-serve vhost-user-fs
CMD_MANS  := $(DOC_COMMANDS:%=dist/man/stainless-%.1)

INSTALLED := $(BINDIR)/stainless $(LIBEXECDIR)/stainless-virtiofsd \
	$(SBINDIR)/mount.fuse.stainless \
	$(MANDIR)/man1/stainless.1 $(MANDIR)/man1/stainless-virtiofsd.1 \
	$(CMD_MANS:dist/man/%=$(MANDIR)/man1/%) \
	$(QEMUDATADIR)/vhost-user/50-stainless-virtiofsd.json \
	$(UNITDIR)/stainless-virtiofsd@.socket $(UNITDIR)/stainless-virtiofsd@.service \
	$(BASHCOMPDIR)/stainless

# The installed paths, named in files that point at the binary.
SUBST = sed -e 's|@LIBEXECDIR@|$(LIBEXECDIR)|g' -e 's|@BINDIR@|$(BINDIR)|g'

.PHONY: install uninstall
install: $(O)/stainless
	@echo "  INSTALL $(DESTDIR)$(PREFIX)"
	$(Q)$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SBINDIR) $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(QEMUDATADIR)/vhost-user $(DESTDIR)$(UNITDIR) $(DESTDIR)$(BASHCOMPDIR)
	$(Q)$(INSTALL) -m 0755 $(O)/stainless $(DESTDIR)$(BINDIR)/stainless
	$(Q)ln -sf "$$(realpath -m --relative-to=$(LIBEXECDIR) $(BINDIR))/stainless" \
		$(DESTDIR)$(LIBEXECDIR)/stainless-virtiofsd
	$(Q)ln -sf "$$(realpath -m --relative-to=$(SBINDIR) $(BINDIR))/stainless" \
		$(DESTDIR)$(SBINDIR)/mount.fuse.stainless
	$(Q)$(INSTALL) -m 0644 dist/man/stainless.1 dist/man/stainless-virtiofsd.1 $(CMD_MANS) \
		$(DESTDIR)$(MANDIR)/man1/
	$(Q)$(SUBST) dist/qemu/50-stainless-virtiofsd.json.in \
		>$(DESTDIR)$(QEMUDATADIR)/vhost-user/50-stainless-virtiofsd.json
	$(Q)chmod 0644 $(DESTDIR)$(QEMUDATADIR)/vhost-user/50-stainless-virtiofsd.json
	$(Q)$(INSTALL) -m 0644 dist/systemd/stainless-virtiofsd@.socket $(DESTDIR)$(UNITDIR)/
	$(Q)$(SUBST) dist/systemd/stainless-virtiofsd@.service.in \
		>$(DESTDIR)$(UNITDIR)/stainless-virtiofsd@.service
	$(Q)chmod 0644 $(DESTDIR)$(UNITDIR)/stainless-virtiofsd@.service
	$(Q)$(INSTALL) -m 0644 dist/bash-completion/stainless $(DESTDIR)$(BASHCOMPDIR)/stainless

# The man pages and the completion, rewritten from the option tables
# (tests/host/cli_help.sh fails when they differ from what the tables write).
.PHONY: dist-docs
dist-docs: $(O)/stainless
	$(Q)for c in $(DOC_COMMANDS); do $(O)/stainless help --man $$c >dist/man/stainless-$$c.1 || exit 1; done
	$(Q)$(O)/stainless help --bash-completion >dist/bash-completion/stainless

# Only what install put there; the folders stay (others may share them).
uninstall:
	$(Q)rm -f $(addprefix $(DESTDIR),$(INSTALLED))
