# SPDX-License-Identifier: GPL-2.0-only
# cmd/: the API socket and config file of `run` (HTTP and JSON readers,
# the resource model, the server in the control loop) and crosvm's
# --shared-dir spelling.
LIB_SRCS += cmd/json.c cmd/http.c cmd/api_res.c cmd/api_model.c cmd/api_hub.c cmd/shared_dir.c cmd/api_server.c cmd/run_api.c
UNIT_TESTS += test_api_json test_api_http test_api_model test_shared_dir
