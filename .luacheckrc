-- SPDX-License-Identifier: Apache-2.0
-- luacheck (Debian's lua-check) over the Lua filters and their tests: lint:lua runs it in CI.
std = "lua51"
max_line_length = 120
-- Slurm calls the filters' entry points by name and gives them the `slurm` table; it decides
-- their arguments, so some go unused.
files["etc/job_submit.lua"] = {
    read_globals = { "slurm" },
    globals = { "slurm_job_submit", "slurm_job_modify" },
    unused_args = false,
}
files["etc/cli_filter.lua"] = {
    read_globals = { "slurm" },
    globals = { "slurm_cli_setup_defaults", "slurm_cli_pre_submit", "slurm_cli_post_submit" },
    unused_args = false,
}
-- The tests' table rows are long by nature.
files["tests/lua"] = { max_line_length = false }
