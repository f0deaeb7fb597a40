# SPDX-License-Identifier: GPL-2.0-only
# The crun handler plugin (dist/crun/, docs/containers.md "crun"): a shared
# object crun loads from its handlers directory. Built by `make` when crun
# is installed, against the interface of the crun version that
# dist/crun/crun_handler.h states; another version is refused with a note
# (and `make crun-handler` fails), since the table's layout changes between
# crun versions. Needs yajl's header (libyajl-dev), the JSON library crun links.
#   make crun-handler      build $(O)/dist/crun/stainless.so
#   make install-crun      the plugin into CRUN_HANDLERS_DIR and the tools
#                          directory (stainless, its loader and libraries, the
#                          guest kernel) into CRUN_TOOLS_DIR
#   make install           does install-crun too where the plugin builds
#                          (and says why not where it does not)
CRUN           ?= $(shell command -v crun 2>/dev/null)
CRUN_WANT      := $(shell sed -n 's/^\#define CRUN_HANDLER_ABI "\(.*\)"/\1/p' dist/crun/crun_handler.h)
CRUN_HAVE      := $(if $(CRUN),$(shell $(CRUN) --version 2>/dev/null | sed -n 's/^crun version //p'))
# crun 1.8.1 loads handlers from CRUN_LIBDIR/handlers, its configure's
# $libdir/crun: Debian's libdir is /usr/lib/<multiarch>.
CRUN_HANDLERS_DIR ?= /usr/lib/$(shell $(CC) -print-multiarch 2>/dev/null)/crun/handlers
CRUN_TOOLS_DIR    ?= $(PREFIX)/lib/stainless/crun
# The tools directory's guest kernel: the build tree's, else mktools looks.
CRUN_KERNEL       ?= $(wildcard $(O)/guest/bzImage)
CRUN_HANDLER   := $(O)/dist/crun/stainless.so
# base/creds.c: whether the container's process may map its ids (fs_caps_effective).
CRUN_SRCS      := dist/crun/stainless_handler.c dist/crun/oci_args.c base/creds.c
CRUN_OBJS      := $(CRUN_SRCS:%.c=$(O)/pic/%.o)

.PHONY: crun-handler crun-check install-crun uninstall-crun
crun-check:
	@[ -n "$(CRUN)" ] || { echo "crun handler: no crun installed (apt-get install crun)" >&2; exit 1; }
	@[ "$(CRUN_HAVE)" = "$(CRUN_WANT)" ] || { echo "crun handler: $(CRUN) is version" \
		"'$(CRUN_HAVE)', the plugin is written against crun $(CRUN_WANT)'s handler" \
		"interface (dist/crun/crun_handler.h); refusing to build it" >&2; exit 1; }
	@[ -f /usr/include/yajl/yajl_tree.h ] || { echo "crun handler: no yajl header" \
		"(apt-get install libyajl-dev)" >&2; exit 1; }

crun-handler: crun-check
	$(Q)$(MAKE) --no-print-directory $(CRUN_HANDLER)

# A bare make builds the plugin when it can, and says why when it cannot;
# make install installs it then (a package build has crun at build time).
CRUN_WHY_NOT :=
ifeq ($(CRUN),)
CRUN_WHY_NOT := no crun installed
else ifneq ($(CRUN_HAVE),$(CRUN_WANT))
CRUN_WHY_NOT := $(CRUN) is '$(CRUN_HAVE)', not $(CRUN_WANT) (dist/crun/crun_handler.h)
$(info crun handler: not built: $(CRUN_WHY_NOT))
else ifeq ($(wildcard /usr/include/yajl/yajl_tree.h),)
CRUN_WHY_NOT := no yajl header (apt-get install libyajl-dev)
$(info crun handler: not built: $(CRUN_WHY_NOT))
endif
ifeq ($(CRUN_WHY_NOT),)
all: $(CRUN_HANDLER)
install: install-crun
uninstall: uninstall-crun
else
install: install-crun-none
endif
.PHONY: install-crun-none crun-force
crun-force:
install-crun-none:
	@echo "  (crun handler not installed: $(CRUN_WHY_NOT))"

# The tools directory is compiled into the plugin: a changed PREFIX or
# CRUN_TOOLS_DIR rebuilds it (debian/rules builds with PREFIX=/usr).
CRUN_TOOLS_STAMP := $(O)/pic/dist/crun/tools-dir
$(CRUN_TOOLS_STAMP): crun-force
	@mkdir -p $(dir $@)
	@[ "$$(cat $@ 2>/dev/null)" = "$(CRUN_TOOLS_DIR)" ] || echo "$(CRUN_TOOLS_DIR)" >$@
$(O)/pic/dist/crun/stainless_handler.o: $(CRUN_TOOLS_STAMP)

$(O)/pic/dist/crun/%.o: dist/crun/%.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$<)$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -fvisibility=hidden \
		-DSTAINLESS_CRUN_TOOLS=\"$(CRUN_TOOLS_DIR)\" -c -o $@ $<

$(O)/pic/base/%.o: base/%.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$<)$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<

$(CRUN_HANDLER): $(CRUN_OBJS)
	@mkdir -p $(dir $@)
	$(call quiet,LD,$@)$(CC) $(LDFLAGS) -shared -Wl,-z,defs -Wl,-z,now -o $@ $^ -lyajl

install-crun: crun-handler $(O)/stainless
	@echo "  INSTALL $(DESTDIR)$(CRUN_HANDLERS_DIR)/stainless.so $(DESTDIR)$(CRUN_TOOLS_DIR)"
	$(Q)$(INSTALL) -d $(DESTDIR)$(CRUN_HANDLERS_DIR)
	$(Q)$(INSTALL) -m 0644 $(CRUN_HANDLER) $(DESTDIR)$(CRUN_HANDLERS_DIR)/stainless.so
	$(Q)dist/crun/mktools $(DESTDIR)$(CRUN_TOOLS_DIR) $(O)/stainless $(CRUN_KERNEL)

uninstall-crun:
	rm -f $(DESTDIR)$(CRUN_HANDLERS_DIR)/stainless.so
	rm -rf $(DESTDIR)$(CRUN_TOOLS_DIR)

-include $(CRUN_OBJS:.o=.d)

# Where the plugin goes (tests/host/crun_handler.sh asks).
.PHONY: crun-handlers-dir
crun-handlers-dir:
	@echo $(CRUN_HANDLERS_DIR)

# Its config.json reader's unit test, wherever yajl's header is.
ifneq ($(wildcard /usr/include/yajl/yajl_tree.h),)
UNIT_BINS += $(O)/tests/unit/test_oci_args
$(O)/tests/unit/test_oci_args: $(O)/tests/unit/test_oci_args.o $(O)/dist/crun/oci_args.o
	$(call quiet,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) -lyajl
endif
