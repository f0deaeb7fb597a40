# SPDX-License-Identifier: GPL-2.0-only
# make install / make uninstall, honouring PREFIX (default /usr/local) and
# DESTDIR (a staging root: paths written into the installed files are
# PREFIX's, without DESTDIR). What goes where:
#   $(BINDIR)/stainless
#   $(LIBEXECDIR)/stainless-virtiofsd   a link to it: the binary under that
#       name is vhost-user-fs (libexec: a system virtiofsd in bin stays)
#   $(MANDIR)/man1/stainless.1, stainless-virtiofsd.1
#   $(QEMUDATADIR)/vhost-user/50-stainless-virtiofsd.json   QEMU's vhost-user
#       descriptor (QEMU and libvirt read /usr/share/qemu/vhost-user and
#       /etc/qemu/vhost-user: with PREFIX=/usr/local it is only a sample)
#   $(UNITDIR)/stainless-virtiofsd@.socket, stainless-virtiofsd@.service
#   $(BASHCOMPDIR)/stainless
PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
LIBEXECDIR  ?= $(PREFIX)/libexec
DATADIR     ?= $(PREFIX)/share
MANDIR      ?= $(DATADIR)/man
QEMUDATADIR ?= $(DATADIR)/qemu
UNITDIR     ?= $(PREFIX)/lib/systemd/system
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
INSTALL     ?= install

INSTALLED := $(BINDIR)/stainless $(LIBEXECDIR)/stainless-virtiofsd \
	$(MANDIR)/man1/stainless.1 $(MANDIR)/man1/stainless-virtiofsd.1 \
	$(QEMUDATADIR)/vhost-user/50-stainless-virtiofsd.json \
	$(UNITDIR)/stainless-virtiofsd@.socket $(UNITDIR)/stainless-virtiofsd@.service \
	$(BASHCOMPDIR)/stainless

# The installed paths, named in files that point at the binary.
SUBST = sed -e 's|@LIBEXECDIR@|$(LIBEXECDIR)|g' -e 's|@BINDIR@|$(BINDIR)|g'

.PHONY: install uninstall
install: $(O)/stainless
	@echo "  INSTALL $(DESTDIR)$(PREFIX)"
	$(Q)$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(QEMUDATADIR)/vhost-user $(DESTDIR)$(UNITDIR) $(DESTDIR)$(BASHCOMPDIR)
	$(Q)$(INSTALL) -m 0755 $(O)/stainless $(DESTDIR)$(BINDIR)/stainless
	$(Q)ln -sf "$$(realpath -m --relative-to=$(LIBEXECDIR) $(BINDIR))/stainless" \
		$(DESTDIR)$(LIBEXECDIR)/stainless-virtiofsd
	$(Q)$(INSTALL) -m 0644 dist/man/stainless.1 dist/man/stainless-virtiofsd.1 $(DESTDIR)$(MANDIR)/man1/
	$(Q)$(SUBST) dist/qemu/50-stainless-virtiofsd.json.in \
		>$(DESTDIR)$(QEMUDATADIR)/vhost-user/50-stainless-virtiofsd.json
	$(Q)chmod 0644 $(DESTDIR)$(QEMUDATADIR)/vhost-user/50-stainless-virtiofsd.json
	$(Q)$(INSTALL) -m 0644 dist/systemd/stainless-virtiofsd@.socket $(DESTDIR)$(UNITDIR)/
	$(Q)$(SUBST) dist/systemd/stainless-virtiofsd@.service.in \
		>$(DESTDIR)$(UNITDIR)/stainless-virtiofsd@.service
	$(Q)chmod 0644 $(DESTDIR)$(UNITDIR)/stainless-virtiofsd@.service
	$(Q)$(INSTALL) -m 0644 dist/bash-completion/stainless $(DESTDIR)$(BASHCOMPDIR)/stainless

# Only what install put there; the folders stay (others may share them).
uninstall:
	$(Q)rm -f $(addprefix $(DESTDIR),$(INSTALLED))
