-- SPDX-License-Identifier: Apache-2.0
-- Switchyard cli_filter.lua (srun/sbatch/salloc, Lua 5.1): an srun inside an allocation with
-- --pipeline-stages gets the planner's node order (distribution=arbitrary), so SLURM_PROCID
-- itself follows the stage plan, whatever launcher the job uses (MPI included). The decision is
-- the C++ planner's (`switchyard plan --order`); this script only passes it on.
--
-- Install: copy next to slurm.conf and set CliFilterPlugins=cli_filter/lua.

local SWITCHYARD = os.getenv("SWITCHYARD_BIN") or "/usr/bin/switchyard"
local POLICY = os.getenv("SWITCHYARD_POLICY") or "/etc/slurm/switchyard.yaml"

local function is_set(v)
    return v ~= nil and v ~= "" and v ~= "unset" and v ~= "0"
end

local function stages_option(options)
    local sp = options.spank
    local v = sp and sp["switchyard"] and sp["switchyard"]["pipeline-stages"]
    if is_set(v) then return v end
    return os.getenv("SLURM_SPANK__SLURM_SPANK_OPTION_switchyard_pipeline_stages")
end

function slurm_cli_setup_defaults(options, early_pass)
    return slurm.SUCCESS
end

function slurm_cli_pre_submit(options, offset)
    if options.type ~= "srun" or os.getenv("SLURM_JOB_ID") == nil then
        return slurm.SUCCESS -- only steps inside an allocation get an order
    end
    local stages = stages_option(options)
    if not is_set(stages) or not string.match(stages, "^%d+$") then
        return slurm.SUCCESS
    end
    if is_set(options.nodelist) or is_set(options.distribution) or is_set(options.exclude) then
        return slurm.SUCCESS -- the user chose the nodes or the layout
    end
    local job_nodes = os.getenv("SLURM_JOB_NODELIST")
    local job_count = os.getenv("SLURM_JOB_NUM_NODES")
    if job_nodes == nil or (is_set(options.nodes) and options.nodes ~= job_count) then
        return slurm.SUCCESS -- a step on part of the allocation: Slurm picks the nodes
    end
    local cmd = string.format("%s plan --policy '%s' --nodes '%s' --stages %s --order 2>/dev/null",
        SWITCHYARD, POLICY, job_nodes, stages)
    local pipe = io.popen(cmd)
    if pipe == nil then return slurm.SUCCESS end
    local order = pipe:read("*l")
    pipe:close()
    if order == nil or order == "" then
        return slurm.SUCCESS -- no plan here; the plugin reports why at step launch
    end
    local per_node = tonumber(options.ntasks_per_node or "") or 1
    if per_node > 1 then
        local expanded = {}
        for node in string.gmatch(order, "[^,]+") do
            for _ = 1, per_node do table.insert(expanded, node) end
        end
        order = table.concat(expanded, ",")
    end
    options["distribution"] = "arbitrary"
    options["nodelist"] = order
    return slurm.SUCCESS
end

function slurm_cli_post_submit(offset, job_id, step_id)
    return slurm.SUCCESS
end
