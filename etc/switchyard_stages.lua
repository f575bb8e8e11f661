-- SPDX-License-Identifier: Apache-2.0
-- Switchyard's placement request for a pipeline job, shared by job_submit.lua (slurmctld) and
-- cli_filter.lua (sbatch/salloc/srun), Lua 5.1. Install next to job_submit.lua and
-- cli_filter.lua. Two parts, kept apart:
--   deciding (pure: text and numbers in, answers out; tests/lua/stages_test.lua loads this file
--   with no `io` and no `os` to prove it): parse_hints (the hints `switchyard discover` wrote,
--   read as data, not code), request, request_for, partition_kinds, without_unknown_features
--   (over the features switchyard_conf.lua reads), shell_quote;
--   reading (files, at the end of this file): read_file, load_hints.
--
--   request(hints, {stages=, nodes=, scope=, segment=}, kind) -> req, nil | nil, message
--   req: { segment = N } (topology/block, 24.05+: N nodes per segment, each inside one block;
--        with prefer = "[a|b]": one group when the job fits one, else the smallest run of
--        groups that holds it),
--        { switches = N } (topology/tree: at most N leaf switches), { features = "[a|b]" }.
--   request_for(hints, job, partitions, default_partition) -> req, nil, note | nil, message
--        the request for the job's partitions ("a,b"; nil: the default partition), each of
--        which may run its own topology (Slurm 25.05+ topology.yaml, partition Topology=).

local M = {}

M.SWITCH_WAIT = 60 -- seconds a tree job may wait for its SU count (--switches=N@time)

--- The plugin's bounds (common/job_options.hpp): what the filters accept is what it accepts.
M.MAX_STAGES = 1024
M.MAX_NVL_GROUP = 4096

--- `text` as a whole number from 1 to `max`, or nil: decimal digits only, as the plugin parses
--- it. tonumber() would take "inf", "0x10", "1e3", " 4" and numbers past 2^53.
function M.whole_number(text, max)
    if type(text) ~= "string" or #text > 10 or not string.match(text, "^%d+$") then
        return nil
    end
    local n = tonumber(text)
    if n < 1 or n > max then return nil end
    return n
end

local function fmt(...) return string.format(...) end

M.MAX_HINTS_BYTES = 1048576

local NUMBER_KEYS = { su_size = true, group_size = true, block_size = true, group_block_size = true,
                      nvl_size = true, su_block_size = true }

--- The kinds of topology a partition may run: tree and block get requests, the others
--- (flat, and "other" for ring and torus3d, whose units are not the fabric's SUs) only checks.
M.KINDS = { tree = true, block = true, flat = true, other = true }

-- The option each request field becomes.
local OPTION = { segment = "--segment", switches = "--switches", features = "--constraint", prefer = "--prefer" }

local function empty_hints()
    return { topology = "tree", su_size = 0, group_size = 0, groups = {}, spans = {},
             block_size = 0, group_block_size = 0, nvl_size = 0, su_block_size = 0,
             nvl_domains = {}, partitions = {}, default_partition = nil }
end

--- The entry of hints.spans for runs of `span` groups (made when missing).
local function span_entry(hints, span)
    for _, level in ipairs(hints.spans) do
        if level.span == span then return level end
    end
    local level = { span = span, size = 0, groups = {} }
    table.insert(hints.spans, level)
    return level
end

--- The hints file discover wrote, read as data, never as code: slurmctld runs job_submit.lua
--- as root, so a file that could run anything would have to be trusted like the script itself.
--- Lines: "-- comment", "return {", "}", "key = <number>,", "topology = \"<kind>\",",
--- "default_partition = \"name\",", "groups = { \"name\", ... },", "partitions = {
--- \"<partition>=<kind>\", ... }," and for runs of <k> groups "group_size_<k> = <number>," and
--- "groups_<k> = { \"name\", ... },". `text` is the file's (at most MAX_HINTS_BYTES + 1 bytes of
--- it), `path` its name for messages. Returns the hints (spans sorted by k), or the empty hints
--- and why (file, line).
function M.parse_hints(text, path)
    if #text > M.MAX_HINTS_BYTES then
        return empty_hints(), fmt("%s: larger than %d bytes; expected the hints switchyard discover writes",
            path, M.MAX_HINTS_BYTES)
    end
    local hints = empty_hints()
    local n = 0
    for line in string.gmatch(text .. "\n", "([^\n]*)\n") do
        n = n + 1
        local l = string.match(line, "^%s*(.-)%s*$")
        local key, num = string.match(l, "^([%w_]+)%s*=%s*(%d+),?$")
        local skey, str = string.match(l, "^([%w_]+)%s*=%s*\"([%w_%.%-]*)\",?$")
        local list = string.match(l, "^groups%s*=%s*{(.*)},?$")
        local nvl_list = string.match(l, "^nvl_domains%s*=%s*{(.*)},?$")
        local part_list = string.match(l, "^partitions%s*=%s*{(.*)},?$")
        local span_list_k, span_list = string.match(l, "^groups_(%d+)%s*=%s*{(.*)},?$")
        local span_size_k = key ~= nil and string.match(key, "^group_size_(%d+)$") or nil
        local names = nil
        if l == "" or string.sub(l, 1, 2) == "--" or l == "return {" or l == "}" then -- luacheck: ignore 542 (layout)
        elseif key ~= nil and NUMBER_KEYS[key] and #num <= 9 then
            hints[key] = tonumber(num)
        elseif span_size_k ~= nil and #span_size_k <= 4 and #num <= 9 then
            span_entry(hints, tonumber(span_size_k)).size = tonumber(num)
        elseif skey == "topology" and M.KINDS[str] then
            hints.topology = str
        elseif skey == "default_partition" and str ~= "" then
            hints.default_partition = str
        elseif part_list ~= nil then
            local bad = false
            local rest = string.gsub(part_list, "%s*\"([%w_%.%-]+)=(%a+)\"%s*,?", function(name, kind)
                if not M.KINDS[kind] then bad = true end
                hints.partitions[name] = kind
                return ""
            end)
            if bad or string.match(rest, "^%s*$") == nil then
                return empty_hints(), fmt("%s:%d: expected partitions = { \"<partition>=tree|block|flat|other\", ... }",
                    path, n)
            end
        elseif list ~= nil or nvl_list ~= nil or (span_list ~= nil and #span_list_k <= 4) then
            names = list ~= nil and hints.groups or nvl_list ~= nil and hints.nvl_domains
                or span_entry(hints, tonumber(span_list_k)).groups
            local rest = string.gsub(list or nvl_list or span_list, "%s*\"([%w_%.%-]+)\"%s*,?", function(g)
                table.insert(names, g)
                return ""
            end)
            if string.match(rest, "^%s*$") == nil then
                return empty_hints(), fmt("%s:%d: expected %s = { \"name\", ... }", path, n,
                    list ~= nil and "groups" or nvl_list ~= nil and "nvl_domains" or "groups_" .. span_list_k)
            end
        else
            return empty_hints(), fmt("%s:%d: '%s' is not a line switchyard discover writes; expected "
                .. "key = number, topology = \"tree\", \"block\", \"flat\" or \"other\", or groups = { ... }",
                path, n, string.sub(l, 1, 60))
        end
    end
    table.sort(hints.spans, function(a, b) return a.span < b.span end)
    return hints, nil
end

--- "[grp_g1|grp_g2|...]": all of a job's nodes in one of these features' node sets, any one
--- (Slurm's matching OR); a single name stands alone.
local function one_of(names)
    if #names == 1 then return names[1] end
    return "[" .. table.concat(names, "|") .. "]"
end

local function group_constraint(hints)
    return one_of(hints.groups)
end

--- What a job of `nodes` nodes prefers on a block topology: one group when it fits one, else
--- the smallest run of groups that holds it; nil when neither exists.
local function preference(hints, nodes)
    if #hints.groups > 1 and hints.group_size > 0 and nodes <= hints.group_size then
        return group_constraint(hints)
    end
    for _, level in ipairs(hints.spans or {}) do
        if level.size >= nodes and #level.groups > 0 then
            return one_of(level.groups)
        end
    end
    return nil
end

local function block_request(hints, job, per_stage)
    local base = hints.block_size or 0
    -- What the scope asks of a stage, whoever chooses the segments.
    if job.scope == "leaf" and base > 0 and per_stage > base then
        local fewer = math.ceil(job.nodes / base)
        while job.nodes % fewer ~= 0 do fewer = fewer + 1 end
        return nil, fmt("--stage-scope=leaf: a stage of %d nodes cannot fit one block (%s of %d nodes); "
            .. "use --pipeline-stages=%d or more, or --stage-scope=group",
            per_stage, (hints.nvl_size or 0) > 0 and "NVLink domain" or "scalable unit", base, fewer)
    end
    if job.scope == "group" and hints.group_size > 0 and per_stage > hints.group_size then
        return nil, fmt("--stage-scope=group: a stage of %d nodes cannot fit one group (%d nodes)",
            per_stage, hints.group_size)
    end
    local seg = job.segment
    if seg ~= nil and seg > 0 then
        if base > 0 and seg > base then
            return nil, fmt("--segment=%d is larger than a block (%d nodes): Slurm can never place "
                .. "it; %s",
                seg, base, per_stage <= base
                    and fmt("drop --segment (switchyard asks for --segment=%d)", per_stage)
                    or fmt("use a divisor of %d up to %d, or drop --segment", per_stage, base))
        end
        if per_stage % seg ~= 0 then
            return nil, fmt("--segment=%d does not make whole stages of %d nodes (-N%d --pipeline-stages=%d); "
                .. "drop --segment or give a divisor of %d",
                seg, per_stage, job.nodes, job.stages, per_stage)
        end
        if job.nvl_group ~= nil and seg % job.nvl_group ~= 0 then
            return nil, fmt("--segment=%d splits NVLink groups of %d nodes (--nvl-group=%d); "
                .. "give a multiple of %d up to %d, or drop --segment",
                seg, job.nvl_group, job.nvl_group, job.nvl_group, base)
        end
        -- The segments make whole stages: kept. They are the user's own or, on 25.11.2 and
        -- later where job_submit.lua reads segment_size, cli_filter.lua's: either way Slurm
        -- places each segment on its own, so the job prefers the fewest groups, as below.
        return { prefer = preference(hints, job.nodes) }, nil
    end
    -- A job of at most one group's aggregated block, unless its stages must each be inside an
    -- SU (--stage-scope=leaf): no --segment. The block plugin keeps the whole job inside one
    -- group (the smallest block level that holds it, as for any job), and the step's rank order
    -- puts its stages on SUs as far as its nodes allow. With segments Slurm places each one on
    -- its own, and when no group has room for all of them, in several groups: the pipeline
    -- sends then cross the global links, which on a Dragonfly+ fabric cost more than a stage
    -- across two SUs of one group (issue 16's replay).
    -- NVLink groups (--nvl-group): the base block is one NVLink domain, so each segment is one
    -- stage when a stage fits a domain (its groups inside it), else one group.
    if job.nvl_group ~= nil then
        local nvl_segment = (base > 0 and per_stage <= base) and per_stage or job.nvl_group
        return { segment = nvl_segment, prefer = preference(hints, job.nodes) }, nil
    end
    local group_block = hints.group_block_size or 0
    if job.scope ~= "leaf" and group_block > 0 and job.nodes <= group_block then
        return {}, nil
    end
    if base > 0 and per_stage <= base then
        -- Each stage inside one block. Slurm places each segment on its own, in the
        -- best-fitting free block anywhere, so a job prefers the fewest groups that hold it: one
        -- group when it fits one, else the smallest run of groups (--prefer: a matching OR over
        -- the groups or runs, tried first at each scheduling pass; when none has room the job
        -- starts as it would have without the preference, it does not wait).
        return { segment = per_stage, prefer = preference(hints, job.nodes) }, nil
    end
    -- A stage larger than a block: --segment cannot be larger than a base block (Slurm's rule),
    -- and a job larger than one group is spread over blocks anywhere: it prefers a group or a
    -- run of groups.
    return { prefer = preference(hints, job.nodes) }, nil
end

local function tree_request(hints, job, per_stage)
    -- A job inside one NVLink domain: a matching OR over the domains' features. A larger one
    -- cannot be told to keep each group of N in a domain on a tree (the leaf level is the SU):
    -- the step's rank order keeps each group's ranks together, as far as its nodes allow.
    if job.nvl_group ~= nil and #hints.nvl_domains > 0 and job.nodes <= hints.nvl_size then
        return { features = one_of(hints.nvl_domains) }, nil
    end
    if job.scope == "leaf" and hints.su_size > 0 then
        if per_stage > hints.su_size then
            return nil, fmt("--stage-scope=leaf: a stage of %d nodes cannot fit one scalable unit (%d nodes)",
                per_stage, hints.su_size)
        end
        return { switches = job.stages }, nil
    end
    if job.scope == "group" and hints.group_size > 0 then
        if per_stage > hints.group_size then
            return nil, fmt("--stage-scope=group: a stage of %d nodes cannot fit one group (%d nodes)",
                per_stage, hints.group_size)
        end
        -- The whole job fits one group: a matching-OR constraint over the groups (a hard
        -- request: the job waits for a group with enough free nodes).
        if job.nodes <= hints.group_size and #hints.groups > 1 then
            return { features = group_constraint(hints) }, nil
        end
    end
    return {}, nil
end

--- The request without its --constraint and --prefer when they name a feature that `known`
--- (switchyard_conf.lua's conf_features) lacks: slurmctld refuses a job whose constraint or preference names a
--- feature no node has, so the job runs without it instead. Returns the request and, when
--- something was left out, a sentence saying what and why (`why`: why known is nil).
function M.without_unknown_features(req, known, why)
    local out, dropped, missing, seen = {}, {}, {}, {}
    for k, v in pairs(req) do out[k] = v end
    for _, field in ipairs({ "features", "prefer" }) do
        local expr = req[field]
        if expr ~= nil then
            local bad = false
            for name in string.gmatch(expr, "[^%[%]|&,%*%s]+") do
                if known == nil or not known[name] then
                    bad = true
                    if not seen[name] then
                        seen[name] = true
                        table.insert(missing, name)
                    end
                end
            end
            if bad then
                out[field] = nil
                table.insert(dropped, fmt("%s=%s", OPTION[field], expr))
            end
        end
    end
    if #dropped == 0 then return out, nil end
    local reason
    if known == nil then
        reason = fmt("slurm.conf's node features could not be read (%s)", tostring(why))
    else
        local shown = {}
        for i = 1, math.min(#missing, 3) do shown[i] = missing[i] end
        reason = fmt("no NodeName line of slurm.conf gives the feature%s %s%s", #missing > 1 and "s" or "",
            table.concat(shown, ", "), #missing > 3 and fmt(" (and %d more)", #missing - 3) or "")
    end
    return out, fmt("runs without %s: %s, and slurmctld would refuse the job "
        .. "(admins: switchyard discover --slurm-nodes)",
        table.concat(dropped, " "), reason)
end

--- Longest preference the record carries (`switchyard audit` reads no longer one back).
M.MARKER_PREFER_MAX = 1024

--- The word `switchyard audit` reads in a job's AdminComment: what the job asked, as the
--- filters understood it ("switchyard:stages=4,scope=leaf,segment=2,nvl=4,prefer=[g1|g2]").
function M.audit_marker(job, req)
    local out = fmt("switchyard:stages=%d,scope=%s", job.stages or 1, job.scope or "any")
    local segment = (req and req.segment) or job.segment
    if segment ~= nil then out = out .. fmt(",segment=%d", segment) end
    if job.nvl_group ~= nil then out = out .. fmt(",nvl=%d", job.nvl_group) end
    -- sacct keeps no switch count: the record carries it for `switchyard audit --since`.
    -- (without "@": the job gave no wait, and Slurm's max_switch_wait is not known here).
    if job.switches ~= nil then
        out = out .. fmt(",switches=%d", job.switches)
        if job.switch_wait ~= nil then out = out .. fmt("@%d", job.switch_wait) end
    end
    -- Nor a preference: the one these filters set (a matching OR of group features) goes in
    -- the record when it is plain feature names and short enough to read back.
    local prefer = req and req.prefer
    if prefer ~= nil and #prefer <= M.MARKER_PREFER_MAX and string.match(prefer, "^[%w_%.%-|&%[%]]+$") then
        out = out .. fmt(",prefer=%s", prefer)
    end
    return out
end

--- `comment` (a job's AdminComment, nil when none) with its switchyard word set to `marker`;
--- the site's own words stay as they are.
function M.with_marker(comment, marker)
    if comment == nil or comment == "" then return marker end
    local replaced, n = string.gsub(comment, "switchyard:[^ ;]*", function() return marker end)
    if n > 0 then return replaced end
    return comment .. " " .. marker
end

--- One shell word for io.popen: quoted whole, a quote inside stays text.
function M.shell_quote(s)
    return "'" .. (string.gsub(tostring(s), "'", "'\\''")) .. "'"
end

--- What to ask Slurm for on a partition of topology `kind` (default: the hints' cluster
--- default). job.stages and job.nodes are numbers (nodes may be nil: decided later), job.scope
--- "leaf"|"group"|"any", job.segment the job's --segment (the user's or cli_filter.lua's) or nil.
function M.request(hints, job, kind)
    kind = kind or hints.topology
    if job.nvl_group == nil and job.nvl_group_text ~= nil then
        return nil, fmt("--nvl-group=%s: expected a whole number of nodes from 1 to %d",
            tostring(job.nvl_group_text), M.MAX_NVL_GROUP)
    end
    if job.stages == nil and job.stages_text ~= nil then
        return nil, fmt("--pipeline-stages=%s: expected a whole number of stages from 1 to %d",
            tostring(job.stages_text), M.MAX_STAGES)
    end
    if job.stages == nil and job.nvl_group ~= nil then
        job.stages = 1 -- NVLink groups without pipeline stages: one stage of every node
    end
    if job.stages == nil or job.stages < 1 or job.stages ~= math.floor(job.stages) then
        return nil, fmt("--pipeline-stages=%s: expected a whole number of stages",
            tostring(job.stages_text or job.stages))
    end
    if job.nvl_group ~= nil then
        local n = job.nvl_group
        if n < 1 or n ~= math.floor(n) then
            return nil, fmt("--nvl-group=%s: expected a whole number of nodes", tostring(job.nvl_group_text or n))
        end
        if (hints.nvl_size or 0) == 0 then
            return nil, fmt("--nvl-group=%d: this cluster's fabric map has no NVLink domains "
                .. "(switchyard discover --node-facts finds them)", n)
        end
        if n > hints.nvl_size then
            return nil, fmt("--nvl-group=%d is larger than an NVLink domain (%d nodes): a group's nodes "
                .. "could not share one; use %d or less",
                n, hints.nvl_size, hints.nvl_size)
        end
    end
    if job.nodes == nil or job.nodes == 0 then
        return {}, nil -- node count decided later; the plugin checks at step launch
    end
    if job.nodes % job.stages ~= 0 then
        return nil, fmt("--pipeline-stages=%d needs a node count it divides; -N%d gives stages of %.2f "
            .. "nodes (try -N%d or -N%d)",
            job.stages, job.nodes, job.nodes / job.stages,
            math.floor(job.nodes / job.stages) * job.stages, math.ceil(job.nodes / job.stages) * job.stages)
    end
    local per_stage = job.nodes / job.stages
    if job.nvl_group ~= nil then
        local n = job.nvl_group
        if job.nodes % n ~= 0 then
            return nil, fmt("--nvl-group=%d does not divide the job's %d nodes (try -N%d or -N%d)",
                n, job.nodes, math.max(n, math.floor(job.nodes / n) * n), math.ceil(job.nodes / n) * n)
        end
        if per_stage % n ~= 0 then
            return nil, fmt("--nvl-group=%d does not divide a pipeline stage of %d nodes: "
                .. "tensor/expert groups nest inside stages",
                n, per_stage)
        end
    end
    if kind == "block" then
        return block_request(hints, job, per_stage)
    elseif kind == "tree" then
        return tree_request(hints, job, per_stage)
    end
    return {}, nil -- flat, ring, torus: nothing to ask in the fabric's terms
end

--- The partitions a job may run in, each with its topology kind: the job's own list ("a,b"),
--- else `default_partition` (job_submit.lua reads it from slurmctld's partition list), else the
--- hints' default partition; a partition the hints do not name runs the cluster default.
function M.partition_kinds(hints, partitions, default_partition)
    local text = partitions
    if text == nil or text == "" then text = default_partition or hints.default_partition end
    local out = {}
    for name in string.gmatch(text or "", "[^,%s]+") do
        table.insert(out, { name = name, kind = (hints.partitions or {})[name] or hints.topology })
    end
    if #out == 0 then table.insert(out, { name = "(default)", kind = hints.topology }) end
    return out
end

-- The fields only some kinds read: tree ignores --segment, block ignores --switches. Every kind
-- reads the others (features, prefer).
local READERS = { segment = { block = true }, switches = { tree = true } }
local FIELDS = { "segment", "switches", "features", "prefer" }

--- The request for a job whose partitions may run different topologies: each kind's request;
--- refused when any partition's is (Slurm may start the job on any of them). Several kinds:
--- a field is kept when every kind that reads it asks for the same value, and dropped
--- otherwise; the note says which partitions run which kind and what was kept or dropped.
function M.request_for(hints, job, partitions, default_partition)
    local parts = M.partition_kinds(hints, partitions, default_partition)
    local by_kind, kinds, names = {}, {}, {}
    for _, p in ipairs(parts) do
        table.insert(names, fmt("%s (%s)", p.name, p.kind))
        if by_kind[p.kind] == nil then
            local req, err = M.request(hints, job, p.kind)
            if req == nil then
                if #parts > 1 then err = fmt("partition %s (topology %s): %s", p.name, p.kind, err) end
                return nil, err
            end
            by_kind[p.kind] = req
            table.insert(kinds, p.kind)
        end
    end
    if #kinds == 1 then return by_kind[kinds[1]], nil, nil end
    local merged, kept, dropped = {}, {}, {}
    for _, field in ipairs(FIELDS) do
        local value, agree = nil, true
        for _, k in ipairs(kinds) do
            local v = by_kind[k][field]
            local reads = READERS[field] == nil or READERS[field][k]
            if v ~= nil and value ~= nil and v ~= value then agree = false end
            if v ~= nil then value = v elseif reads then agree = false end
        end
        if value ~= nil then
            if agree then
                merged[field] = value
                table.insert(kept, fmt("%s=%s", OPTION[field], tostring(value)))
            else
                table.insert(dropped, fmt("%s=%s", OPTION[field], tostring(value)))
            end
        end
    end
    local note = fmt("partitions %s run different topologies: %s%s", table.concat(names, ", "),
        #kept > 0 and ("asked " .. table.concat(kept, " ")) or "asked nothing",
        #dropped > 0 and ("; left out " .. table.concat(dropped, " ") .. ", not right for every partition")
            or "")
    return merged, nil, note
end

-- Reading: the only part of this file that touches files.

--- The first `max` + 1 bytes of `file` (enough to tell it is too large), or nil and why.
function M.read_file(file, max)
    local f, err = io.open(file, "r")
    if f == nil then return nil, err end
    local text = f:read(max + 1) or ""
    f:close()
    return text, nil
end

--- The hints at `path` (parse_hints), or the empty hints and why.
function M.load_hints(path)
    local text, err = M.read_file(path, M.MAX_HINTS_BYTES)
    if text == nil then return empty_hints(), tostring(err) end
    return M.parse_hints(text, path)
end

return M
