-- SPDX-License-Identifier: Apache-2.0
-- Switchyard job_submit.lua (slurmctld, Lua 5.1): turns --pipeline-stages / --stage-scope into
-- Slurm-native placement requests and refuses impossible ones. It runs inside slurmctld while it
-- holds its locks, so it never runs a command and reads only the small hints file that
-- `switchyard discover` writes (once, when the script is loaded). The decision is
-- switchyard_stages.lua's, shared with cli_filter.lua.
--
-- topology/tree: --switches=<stages>@60s for --stage-scope=leaf, a group constraint for
-- --stage-scope=group. topology/block (24.05+): --segment=<nodes per stage>, and --prefer of
-- the fewest groups (Slurm places each segment on its own). flat: checks only. The topology is
-- the one of the job's partition (or slurmctld's default partition), as the hints name it
-- (Slurm 25.05+ partitions pick theirs in topology.yaml); a job whose partitions run different
-- topologies gets what is right for all of them, and slurmctld's log says what was left out.
-- Slurm lets job_submit.lua set segment_size from 25.11.2 on (checked here: it must make whole
-- stages and fit a block, else the job would pend forever); before that cli_filter.lua sets
-- --segment in the client and this script refuses what Slurm could never place.
--
-- Install: copy this file and switchyard_stages.lua next to slurm.conf, set
-- JobSubmitPlugins=lua, and point HINTS below at <discover output>/job_submit_hints.lua.

local HINTS = os.getenv("SWITCHYARD_JOB_SUBMIT_HINTS") or "/etc/slurm/switchyard/job_submit_hints.lua"
local NO_VAL = 4294967294
local NO_VAL16 = 65534

local here = string.match(debug.getinfo(1, "S").source, "^@(.*/)") or "./"
local stages_lib = dofile(here .. "switchyard_stages.lua")

local hints, why = stages_lib.load_hints(HINTS)
if why ~= nil then
    slurm.log_info("switchyard: no placement hints at %s (%s); only option checks apply", HINTS, why)
end

-- The node features slurmctld has: those of slurm.conf's NodeName lines (and its Includes),
-- read when slurmctld loads this script, which it does when it starts and, from 23.11 on, at
-- every reconfigure (on 22.05 and 23.02 when this file's mtime changes: switchyard install
-- touches it). A constraint or preference that names a feature they lack is left out: Slurm
-- would refuse the job ("Invalid feature specification").
local SLURM_CONF = os.getenv("SLURM_CONF") or (here .. "slurm.conf")
-- switchyard_conf.lua reads them; a copy of this script without it still loads (the features
-- are then unknown, and the log says why).
local conf_ok, conf_lib = pcall(dofile, here .. "switchyard_conf.lua")
local known_features, features_why = nil, tostring(conf_lib)
if conf_ok then known_features, features_why = conf_lib.conf_features(SLURM_CONF) end
if features_why ~= nil then
    slurm.log_info("switchyard: node features of %s unknown (%s); pipeline jobs get no constraint or preference",
        SLURM_CONF, features_why)
end
local jobs_without_features = 0 -- since slurmctld loaded this script; each one logged

local function spank_option(job_desc, name)
    local env = job_desc.spank_job_env
    if env == nil then return nil end
    local prefix = "_SLURM_SPANK_OPTION_switchyard_" .. name .. "="
    -- Handed over as a table indexed from 0 (22.05 and 24.11): pairs, not ipairs.
    for _, kv in pairs(env) do
        if string.sub(kv, 1, #prefix) == prefix then
            return string.sub(kv, #prefix + 1)
        end
    end
    return nil
end

local function refuse(msg)
    slurm.log_user("switchyard: %s", msg)
    return slurm.ERROR
end

local function unset(v) return v == nil or v == NO_VAL or v == NO_VAL16 or v == 0 end

function slurm_job_submit(job_desc, part_list, submit_uid)
    local stages_text = spank_option(job_desc, "pipeline_stages")
    local nvl_text = spank_option(job_desc, "nvl_group")
    if stages_text == nil and nvl_text == nil then
        return slurm.SUCCESS
    end
    -- segment_size reads as nil before 25.11.2 (the field is unknown to the Lua API there).
    local segment = job_desc.segment_size
    local can_set_segment = segment ~= nil
    -- The partitions the job may run in decide what to ask (each may run its own topology
    -- from 25.05 on); without one, slurmctld's default partition.
    local default_partition = nil
    for name, part in pairs(part_list or {}) do
        if part.flag_default == 1 then default_partition = name end
    end
    local req, err, note = stages_lib.request_for(hints, {
        stages = stages_lib.whole_number(stages_text, stages_lib.MAX_STAGES), stages_text = stages_text,
        nvl_group = stages_lib.whole_number(nvl_text, stages_lib.MAX_NVL_GROUP), nvl_group_text = nvl_text,
        nodes = (not unset(job_desc.min_nodes)) and job_desc.min_nodes or nil,
        scope = spank_option(job_desc, "stage_scope") or "any",
        segment = (not unset(segment)) and segment or nil,
    }, job_desc.partition, default_partition)
    if req == nil then
        return refuse(err)
    end
    if note ~= nil then
        slurm.log_info("switchyard: job of uid %d: %s", submit_uid, note)
    end
    -- The job's own --constraint or --prefer stays as it is (Slurm checks it), and ours is not
    -- added beside it: nothing of ours to check then.
    if job_desc.features ~= nil and job_desc.features ~= "" then req.features = nil end
    if job_desc.prefer ~= nil and job_desc.prefer ~= "" then req.prefer = nil end
    local left_out
    req, left_out = stages_lib.without_unknown_features(req, known_features, features_why)
    if left_out ~= nil then
        jobs_without_features = jobs_without_features + 1
        slurm.log_info("switchyard: job of uid %d %s [%d such jobs since slurmctld loaded job_submit.lua]",
            submit_uid, left_out, jobs_without_features)
        slurm.log_user("switchyard: this job %s", left_out)
    end
    if req.switches ~= nil and unset(job_desc.req_switch) then
        job_desc.req_switch = req.switches
        job_desc.wait4switch = stages_lib.SWITCH_WAIT
    end
    if req.features ~= nil and (job_desc.features == nil or job_desc.features == "") then
        job_desc.features = req.features
    end
    if req.prefer ~= nil and (job_desc.prefer == nil or job_desc.prefer == "") then
        job_desc.prefer = req.prefer
    end
    if req.segment ~= nil and can_set_segment and unset(segment) then
        job_desc.segment_size = req.segment -- 25.11.2+; before that cli_filter.lua has set it
    end
    -- What was asked, for `switchyard audit` (an AdminComment only admins and this script set).
    job_desc.admin_comment = stages_lib.with_marker(job_desc.admin_comment, stages_lib.audit_marker({
        stages = stages_lib.whole_number(stages_text, stages_lib.MAX_STAGES),
        scope = spank_option(job_desc, "stage_scope") or "any",
        nvl_group = stages_lib.whole_number(nvl_text, stages_lib.MAX_NVL_GROUP),
        segment = (not unset(segment)) and segment or nil,
        switches = (not unset(job_desc.req_switch)) and job_desc.req_switch or nil,
        switch_wait = (not unset(job_desc.wait4switch)) and job_desc.wait4switch or nil,
    }, req))
    return slurm.SUCCESS
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
    return slurm.SUCCESS
end

return slurm.SUCCESS
