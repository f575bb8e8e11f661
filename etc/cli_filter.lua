-- SPDX-License-Identifier: Apache-2.0
-- Switchyard cli_filter.lua (srun/sbatch/salloc, Lua 5.1), two jobs:
-- * A new allocation with --pipeline-stages on a topology/block partition (24.05+) gets
--   --segment=<nodes per stage>, so slurmctld itself allocates each stage inside one block
--   (scalable unit); requests Slurm could never place are refused here with what to change.
--   With --nvl-group=N (blocks of NVLink domains) the segment keeps each group of N nodes,
--   or each stage that fits a domain, inside one domain.
--   job_submit.lua cannot set segment_size before Slurm 25.11.2, so the client does it there;
--   from 25.11.2 on job_submit.lua does it too and this part is optional.
-- * Advice before waiting: a pipeline job whose request (its segments on a block partition,
--   its switch count or group on a tree) cannot start on the nodes usable now gets one line
--   saying why and what would start now (`switchyard why --quiet`: one sinfo, bounded; the
--   whole call is cut by /usr/bin/timeout; it never fails or holds up the submission).
-- * An srun inside an allocation with --pipeline-stages gets the planner's node order
--   (distribution=arbitrary), so SLURM_PROCID itself follows the stage plan, whatever launcher
--   the job uses (MPI included). The decision is the C++ planner's (`switchyard plan --order`);
--   this script only passes it on.
--
-- Install: copy this file and switchyard_stages.lua next to slurm.conf and set
-- CliFilterPlugins=cli_filter/lua.

local SWITCHYARD = os.getenv("SWITCHYARD_BIN") or "/usr/bin/switchyard"
local POLICY = os.getenv("SWITCHYARD_POLICY") or "/etc/slurm/switchyard.yaml"
local HINTS = os.getenv("SWITCHYARD_JOB_SUBMIT_HINTS") or "/etc/slurm/switchyard/job_submit_hints.lua"
local TIMEOUT = "/usr/bin/timeout"
-- Seconds the advice may take (sinfo's bound; the whole call is cut one second later, and
-- killed one after that). 0 turns the advice off.
local ADVICE_SECONDS = tonumber(os.getenv("SWITCHYARD_ADVICE_SECONDS") or "") or 1.5

local here = string.match(debug.getinfo(1, "S").source, "^@(.*/)") or "./"
local stages_lib = dofile(here .. "switchyard_stages.lua")

local function is_set(v)
    return v ~= nil and v ~= "" and v ~= "unset" and v ~= "0"
end

local function spank_value(options, name)
    local sp = options.spank
    local v = sp and sp["switchyard"] and sp["switchyard"][name]
    if is_set(v) then return v end
    return nil
end

local function stages_option(options)
    return spank_value(options, "pipeline-stages")
        or os.getenv("SLURM_SPANK__SLURM_SPANK_OPTION_switchyard_pipeline_stages")
end

function slurm_cli_setup_defaults(options, early_pass)
    return slurm.SUCCESS
end

--- The advice line for a pipeline job: `switchyard why --quiet` with the request the filters
--- ask for on `part` (a partition of kind tree or block); nil when it starts now, when there is
--- nothing to say, or when the call failed or ran out of time.
local function advice(job, req, part)
    if ADVICE_SECONDS <= 0 or job.nodes == nil then return nil end
    local args = { "--nodes", job.nodes, "--stages", job.stages, "--scope", job.scope,
                   "--topology", part.kind }
    local segment = req.segment or job.segment
    if part.kind == "block" and segment ~= nil then
        table.insert(args, "--segment"); table.insert(args, segment)
        if job.spread then table.insert(args, "--spread-segments") end
    elseif part.kind == "tree" and req.switches ~= nil then
        table.insert(args, "--switches"); table.insert(args, req.switches)
        table.insert(args, "--switch-wait"); table.insert(args, stages_lib.SWITCH_WAIT)
    elseif part.kind == "tree" and req.features ~= nil and job.scope == "group" then
        table.insert(args, "--one-group")
    else
        return nil -- no unit asked: Slurm starts the job on any usable nodes
    end
    if part.name ~= "(default)" then
        table.insert(args, "--partition"); table.insert(args, part.name)
    end
    local words = {}
    for _, a in ipairs(args) do table.insert(words, stages_lib.shell_quote(a)) end
    local cmd = string.format("%s -k 1 %s %s why --quiet --timeout %s --policy %s %s 2>/dev/null",
        TIMEOUT, stages_lib.shell_quote(ADVICE_SECONDS + 1), stages_lib.shell_quote(SWITCHYARD),
        stages_lib.shell_quote(ADVICE_SECONDS), stages_lib.shell_quote(POLICY), table.concat(words, " "))
    local pipe = io.popen(cmd)
    if pipe == nil then return nil end
    local line = pipe:read("*l")
    pipe:close()
    if line == nil or line == "" then return nil end
    return string.sub(line, 1, 1000)
end

--- A new allocation with --pipeline-stages: --segment for the stages on a block topology, or a
--- refusal; then the advice line when its request cannot start now.
local function allocation_request(options)
    -- Only this request's own option: inside a pipeline job the environment carries the outer
    -- job's stage count, which a new, plain submission must not inherit.
    local stages_text = spank_value(options, "pipeline-stages")
    local nvl_text = spank_value(options, "nvl-group")
    if not is_set(stages_text) and not is_set(nvl_text) then return slurm.SUCCESS end
    local hints = stages_lib.load_hints(HINTS)
    local lo, hi = string.match(options.nodes or "", "^(%d+)%-?(%d*)$")
    local nodes = tonumber(lo or "")
    if hi ~= nil and hi ~= "" and hi ~= lo then nodes = nil end -- a range: decided by Slurm
    local user_segment = tonumber(options.segment or "")
    if user_segment == 0 then user_segment = nil end
    local kinds = stages_lib.partition_kinds(hints, options.partition)
    local any_block, unit_part = false, nil
    for _, p in ipairs(kinds) do
        any_block = any_block or p.kind == "block"
        if unit_part == nil and (p.kind == "block" or p.kind == "tree") then unit_part = p end
    end
    local job = {
        stages = stages_lib.whole_number(stages_text, stages_lib.MAX_STAGES), stages_text = stages_text,
        nodes = nodes,
        nvl_group = stages_lib.whole_number(nvl_text, stages_lib.MAX_NVL_GROUP), nvl_group_text = nvl_text,
        scope = spank_value(options, "stage-scope") or "any", segment = user_segment,
        spread = is_set(options["spread-segments"]),
    }
    local req, err = stages_lib.request_for(hints, job, options.partition)
    if req == nil then
        if not any_block then
            return slurm.SUCCESS -- job_submit.lua refuses it in slurmctld, with the same words
        end
        slurm.log_error("switchyard: %s", err)
        return slurm.ERROR
    end
    if any_block and req.segment ~= nil and user_segment == nil then
        options["segment"] = tostring(req.segment)
    end
    if unit_part ~= nil and #kinds == 1 then
        -- The advice must never cost the submission: any error in it is swallowed.
        local ok, line = pcall(advice, job, req, unit_part)
        if ok and line ~= nil then slurm.log_info("%s", line) end
    end
    return slurm.SUCCESS
end

function slurm_cli_pre_submit(options, offset)
    if options.type ~= "srun" or os.getenv("SLURM_JOB_ID") == nil then
        return allocation_request(options)
    end
    local stages = stages_option(options)
    local nvl = spank_value(options, "nvl-group")
        or os.getenv("SLURM_SPANK__SLURM_SPANK_OPTION_switchyard_nvl_group")
    if not is_set(stages) and is_set(nvl) then stages = "1" end
    if not is_set(stages) or not string.match(stages, "^%d+$") then
        return slurm.SUCCESS
    end
    local nvl_arg = ""
    if is_set(nvl) and string.match(nvl, "^%d+$") then
        nvl_arg = " --nvl-group " .. stages_lib.shell_quote(nvl)
    end
    -- The step's scope, as the plugin reads it: it decides whether the stages may be striped.
    local scope = spank_value(options, "stage-scope")
        or os.getenv("SLURM_SPANK__SLURM_SPANK_OPTION_switchyard_stage_scope") or "any"
    if scope ~= "leaf" and scope ~= "group" and scope ~= "any" then
        return slurm.SUCCESS -- the plugin refuses the value at step launch, with its words
    end
    if is_set(options.nodelist) or is_set(options.distribution) or is_set(options.exclude) then
        return slurm.SUCCESS -- the user chose the nodes or the layout
    end
    local job_nodes = os.getenv("SLURM_JOB_NODELIST")
    local job_count = os.getenv("SLURM_JOB_NUM_NODES")
    if job_nodes == nil or (is_set(options.nodes) and options.nodes ~= job_count) then
        return slurm.SUCCESS -- a step on part of the allocation: Slurm picks the nodes
    end
    -- io.popen runs a shell: every argument is quoted, so a quote in a node list stays text.
    local cmd = string.format(
        "%s plan --policy %s --nodes %s --stages %s --scope %s%s --order 2>/dev/null",
        stages_lib.shell_quote(SWITCHYARD), stages_lib.shell_quote(POLICY),
        stages_lib.shell_quote(job_nodes), stages_lib.shell_quote(stages),
        stages_lib.shell_quote(scope), nvl_arg)
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
