-- SPDX-License-Identifier: Apache-2.0
-- Switchyard job_submit.lua (slurmctld, Lua 5.1): turns --pipeline-stages / --stage-scope into
-- Slurm-native placement requests and refuses impossible ones. It runs inside slurmctld while it
-- holds its locks, so it never runs a command and reads only the small hints file that
-- `switchyard discover` writes (once, when the script is loaded).
--
-- Install: copy next to slurm.conf, set JobSubmitPlugins=lua, and point HINTS below at
-- <discover output>/job_submit_hints.lua.

local HINTS = os.getenv("SWITCHYARD_JOB_SUBMIT_HINTS") or "/etc/slurm/switchyard/job_submit_hints.lua"
local SWITCH_WAIT = 60 -- seconds a job may wait for the requested SU count (--switches=N@time)

local NO_VAL = 4294967294

local hints = { su_size = 0, group_size = 0, groups = {} }
do
    local ok, loaded = pcall(dofile, HINTS)
    if ok and type(loaded) == "table" then
        hints = loaded
    else
        slurm.log_info("switchyard: no placement hints at %s (%s); only option checks apply", HINTS, tostring(loaded))
    end
end

local function spank_option(job_desc, name)
    local env = job_desc.spank_job_env
    if env == nil then return nil end
    local prefix = "_SLURM_SPANK_OPTION_switchyard_" .. name .. "="
    -- Slurm 22.05 hands it over as a table indexed from 0: pairs, not ipairs.
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

function slurm_job_submit(job_desc, part_list, submit_uid)
    local stages_text = spank_option(job_desc, "pipeline_stages")
    if stages_text == nil then
        return slurm.SUCCESS
    end
    local stages = tonumber(stages_text)
    if stages == nil or stages < 1 then
        return refuse("--pipeline-stages=" .. stages_text .. ": expected a whole number of stages")
    end
    local nodes = job_desc.min_nodes
    if nodes == nil or nodes == NO_VAL or nodes == 0 then
        return slurm.SUCCESS -- node count decided later; the plugin checks at step launch
    end
    if nodes % stages ~= 0 then
        return refuse(string.format("--pipeline-stages=%d needs a node count it divides; -N%d gives stages of %.2f nodes (try -N%d or -N%d)",
            stages, nodes, nodes / stages, math.floor(nodes / stages) * stages, math.ceil(nodes / stages) * stages))
    end
    local scope = spank_option(job_desc, "stage_scope") or "any"
    local per_stage = nodes / stages
    if scope == "leaf" and hints.su_size > 0 then
        if per_stage > hints.su_size then
            return refuse(string.format("--stage-scope=leaf: a stage of %d nodes cannot fit one scalable unit (%d nodes)",
                per_stage, hints.su_size))
        end
        if job_desc.req_switch == nil or job_desc.req_switch == NO_VAL then
            job_desc.req_switch = stages
            job_desc.wait4switch = SWITCH_WAIT
        end
    elseif scope == "group" and hints.group_size > 0 and per_stage > hints.group_size then
        return refuse(string.format("--stage-scope=group: a stage of %d nodes cannot fit one group (%d nodes)",
            per_stage, hints.group_size))
    end
    -- --stage-scope=group and the whole job fits one group: a matching-OR constraint over the
    -- groups (a hard request: the job waits for a group with enough free nodes).
    if scope == "group" and hints.group_size > 0 and nodes <= hints.group_size and #hints.groups > 1
        and (job_desc.features == nil or job_desc.features == "") then
        job_desc.features = "[" .. table.concat(hints.groups, "|") .. "]"
    end
    return slurm.SUCCESS
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
    return slurm.SUCCESS
end

return slurm.SUCCESS
