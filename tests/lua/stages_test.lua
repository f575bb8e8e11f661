-- SPDX-License-Identifier: Apache-2.0
-- Table tests of etc/switchyard_stages.lua (the Lua filters' shared decision), run by the
-- stand-alone lua5.1 interpreter that Slurm's Lua plugins embed. Prints "N passed, M failed".
--   lua5.1 stages_test.lua ETC_DIR [GOLDEN_CASE_DIR...]
-- Each GOLDEN_CASE_DIR is a golden discover case whose expected files include the hints: every
-- one must be read back, and agree with its fabric map (the C++ writer and this reader cannot
-- drift apart).
local etc = assert(arg[1], "usage: stages_test.lua ETC_DIR [GOLDEN_CASE_DIR...]")
local lib = dofile(etc .. "/switchyard_stages.lua")
local conf = dofile(etc .. "/switchyard_conf.lua")

-- The dfp16 fabric (2 groups x 2 SUs x 4 hosts), as discover writes its hints.
local tree = { topology = "tree", su_size = 4, group_size = 8, groups = { "grp_g1", "grp_g2" },
               block_size = 4, group_block_size = 8 }
local block = { topology = "block", su_size = 4, group_size = 8, groups = { "grp_g1", "grp_g2" },
                block_size = 4, group_block_size = 8 }
-- Eight groups of 8 hosts (2 SUs of 4): runs of 2 and 4 groups, as discover writes them.
local block8 = { topology = "block", su_size = 4, group_size = 8, block_size = 4, group_block_size = 8,
                 groups = { "grp_g1", "grp_g2", "grp_g3", "grp_g4", "grp_g5", "grp_g6", "grp_g7", "grp_g8" },
                 spans = { { span = 2, size = 16, groups = { "grp2_g1", "grp2_g3", "grp2_g5", "grp2_g7" } },
                           { span = 4, size = 32, groups = { "grp4_g1", "grp4_g5" } } } }
-- Three groups: one whole pair, the third group in no run.
local block3 = { topology = "block", su_size = 4, group_size = 8, block_size = 4, group_block_size = 8,
                 groups = { "grp_g1", "grp_g2", "grp_g3" },
                 spans = { { span = 2, size = 16, groups = { "grp2_g1" } } } }
local pairs8 = "[grp2_g1|grp2_g3|grp2_g5|grp2_g7]"
-- dfp16 with an NVLink domain of 2 hosts under each half SU (discover/nvl-dfp16's hints).
local nvl_names = {}
for i = 1, 8 do table.insert(nvl_names, "nvl_a1b2c3d" .. i .. "_32766") end
local nvl = { topology = "block", su_size = 4, group_size = 8, groups = { "grp_g1", "grp_g2" },
              block_size = 2, group_block_size = 8, nvl_size = 2, su_block_size = 4, nvl_domains = nvl_names }
local nvl_tree = { topology = "tree", su_size = 4, group_size = 8, groups = { "grp_g1", "grp_g2" },
                   block_size = 2, group_block_size = 8, nvl_size = 2, su_block_size = 4, nvl_domains = nvl_names }

local cases = {
    -- name, hints, job, expected request (table) or expected message fragment (string)
    { "nvl block: groups of 2 without stages: a segment per group", nvl, { nvl_group = 2, nodes = 8 },
      { segment = 2, prefer = "[grp_g1|grp_g2]" } },
    { "nvl block: stages that fit a domain are the segments", nvl, { nvl_group = 1, stages = 4, nodes = 8 },
      { segment = 2, prefer = "[grp_g1|grp_g2]" } },
    { "nvl block: a group larger than a domain", nvl, { nvl_group = 4, nodes = 8 },
      "--nvl-group=4 is larger than an NVLink domain (2 nodes): a group's nodes could not share one; use 2 or less" },
    { "nvl block: a node count the group does not divide", nvl, { nvl_group = 2, nodes = 7 },
      "--nvl-group=2 does not divide the job's 7 nodes (try -N6 or -N8)" },
    { "nvl block: a stage the group does not divide", nvl, { nvl_group = 2, stages = 4, nodes = 4 },
      "--nvl-group=2 does not divide a pipeline stage of 1 nodes: tensor/expert groups nest inside stages" },
    { "nvl block: the user's segment splits groups", nvl, { nvl_group = 2, nodes = 6, segment = 1 },
      "--segment=1 splits NVLink groups of 2 nodes (--nvl-group=2); give a multiple of 2 up to 2" },
    { "nvl block: --stage-scope=leaf names the block a domain", nvl, { stages = 1, nodes = 4, scope = "leaf" },
      "a stage of 4 nodes cannot fit one block (NVLink domain of 2 nodes)" },
    { "nvl: not a number", nvl, { nvl_group = 0, nvl_group_text = "0", nodes = 8 },
      "--nvl-group=0: expected a whole number of nodes" },
    { "nvl: a cluster without NVLink domains refuses", block, { nvl_group = 2, nodes = 8 },
      "--nvl-group=2: this cluster's fabric map has no NVLink domains" },
    { "nvl tree: a job inside one domain gets a matching OR over the domains", nvl_tree,
      { nvl_group = 2, nodes = 2 }, { features = "[" .. table.concat(nvl_names, "|") .. "]" } },
    { "nvl tree: a job larger than a domain: nothing a tree can ask", nvl_tree, { nvl_group = 2, nodes = 4 }, {} },
    { "tree leaf: --switches=stages", tree, { stages = 2, nodes = 8, scope = "leaf" }, { switches = 2 } },
    { "tree leaf: stage larger than an SU", tree, { stages = 1, nodes = 8, scope = "leaf" },
      "a stage of 8 nodes cannot fit one scalable unit (4 nodes)" },
    { "tree group: whole job in one group", tree, { stages = 2, nodes = 8, scope = "group" },
      { features = "[grp_g1|grp_g2]" } },
    { "tree group: job larger than a group", tree, { stages = 4, nodes = 16, scope = "group" }, {} },
    { "tree group: stage larger than a group", tree, { stages = 1, nodes = 16, scope = "group" },
      "a stage of 16 nodes cannot fit one group (8 nodes)" },
    { "tree any: nothing asked", tree, { stages = 2, nodes = 8, scope = "any" }, {} },
    { "indivisible node count", tree, { stages = 2, nodes = 7, scope = "any" },
      "-N7 gives stages of 3.50 nodes (try -N6 or -N8)" },
    { "indivisible on block too", block, { stages = 3, nodes = 8, scope = "leaf" },
      "--pipeline-stages=3 needs a node count it divides" },
    { "not a number of stages", block, { stages = nil, stages_text = "two", nodes = 8 },
      "--pipeline-stages=two: expected a whole number of stages" },
    { "zero stages", block, { stages = 0, nodes = 8 }, "expected a whole number of stages" },
    { "node count not known yet", block, { stages = 2, scope = "leaf" }, {} },
    { "block: a job of one group is the block plugin's, kept in one group", block, { stages = 2, nodes = 8, scope = "any" }, {} },
    { "block group: a job of one group is the block plugin's", block, { stages = 4, nodes = 8, scope = "group" }, {} },
    { "block leaf: segment = nodes per stage", block, { stages = 4, nodes = 8, scope = "leaf" },
      { segment = 2, prefer = "[grp_g1|grp_g2]" } },
    { "block leaf: a job smaller than a group prefers one", block, { stages = 2, nodes = 4, scope = "leaf" },
      { segment = 2, prefer = "[grp_g1|grp_g2]" } },
    { "block: a job smaller than a group is the block plugin's", block, { stages = 2, nodes = 4, scope = "any" }, {} },
    { "block: no group level, segments and a preference", { topology = "block", su_size = 4, group_size = 8,
      groups = { "grp_g1", "grp_g2" }, block_size = 4, group_block_size = 0 }, { stages = 2, nodes = 8, scope = "any" },
      { segment = 4, prefer = "[grp_g1|grp_g2]" } },
    { "block: one group only, no constraint", { topology = "block", su_size = 4, group_size = 8, groups = { "grp_g1" },
      block_size = 4, group_block_size = 8 }, { stages = 2, nodes = 8, scope = "leaf" }, { segment = 4 } },
    { "block group: small stages inside SUs; the job is larger than a group", block,
      { stages = 4, nodes = 16, scope = "group" }, { segment = 4 } },
    { "block leaf: stage larger than a block", block, { stages = 2, nodes = 16, scope = "leaf" },
      "a stage of 8 nodes cannot fit one block (scalable unit of 4 nodes); use --pipeline-stages=4 or more" },
    { "block any: stage larger than a block, no segment", block, { stages = 2, nodes = 16, scope = "any" }, {} },
    { "block group: stage of one group, no segment", block, { stages = 1, nodes = 8, scope = "group" }, {} },
    { "block: a job of two groups prefers a pair", block8, { stages = 4, nodes = 16, scope = "any" },
      { segment = 4, prefer = pairs8 } },
    { "block: a job of one and a half groups prefers a pair", block8, { stages = 6, nodes = 12, scope = "any" },
      { segment = 2, prefer = pairs8 } },
    { "block: a job of four groups prefers a quad", block8, { stages = 8, nodes = 32, scope = "any" },
      { segment = 4, prefer = "[grp4_g1|grp4_g5]" } },
    { "block: a job larger than every run prefers nothing", block8, { stages = 10, nodes = 40, scope = "any" },
      { segment = 4 } },
    { "block: large stages, a job of two groups prefers a pair", block8, { stages = 2, nodes = 16, scope = "any" },
      { prefer = pairs8 } },
    { "block: large stages, a job of one group is the block plugin's", block8, { stages = 1, nodes = 8, scope = "any" }, {} },
    { "block: the only pair stands alone", block3, { stages = 3, nodes = 12, scope = "any" },
      { segment = 4, prefer = "grp2_g1" } },
    { "block group: stage larger than a group", block, { stages = 1, nodes = 16, scope = "group" },
      "a stage of 16 nodes cannot fit one group (8 nodes)" },
    -- A job's own segments (the user's, or cli_filter.lua's as job_submit.lua sees them on
    -- 25.11.2+) are kept, and the job prefers the fewest groups as with switchyard's segments.
    { "block: user's segment equal to a stage", block, { stages = 2, nodes = 8, scope = "leaf", segment = 4 },
      { prefer = "[grp_g1|grp_g2]" } },
    { "block: user's segment makes whole stages", block, { stages = 2, nodes = 8, scope = "any", segment = 2 },
      { prefer = "[grp_g1|grp_g2]" } },
    { "block: cli_filter's segment of a job larger than a group", block8, { stages = 3, nodes = 12, scope = "any", segment = 4 },
      { prefer = pairs8 } },
    { "block: user's segment splits a stage", block, { stages = 2, nodes = 12, scope = "any", segment = 4 },
      "--segment=4 does not make whole stages of 6 nodes (-N12 --pipeline-stages=2); drop --segment or give a divisor of 6" },
    { "block: user's segment larger than a block", block, { stages = 1, nodes = 8, scope = "any", segment = 8 },
      "--segment=8 is larger than a block (4 nodes): Slurm can never place it" },
    { "block: user's segment larger than a block, stage too", block, { stages = 2, nodes = 16, scope = "any", segment = 8 },
      "--segment=8 is larger than a block (4 nodes): Slurm can never place it; use a divisor of 8 up to 4, or drop --segment" },
    { "block leaf: the user's segment does not lift the scope", block, { stages = 2, nodes = 16, scope = "leaf", segment = 4 },
      "--stage-scope=leaf: a stage of 8 nodes cannot fit one block" },
    { "block any: the user's segments of a large stage are kept", block, { stages = 2, nodes = 16, scope = "any", segment = 4 }, {} },
    { "block without sizes: nothing asked", { topology = "block", su_size = 0, group_size = 0, groups = {} },
      { stages = 2, nodes = 8, scope = "leaf" }, {} },
}

local function same(a, b)
    for k, v in pairs(a) do if b[k] ~= v then return false end end
    for k, v in pairs(b) do if a[k] ~= v then return false end end
    return true
end

local function show(t)
    if type(t) ~= "table" then return tostring(t) end
    local parts = {}
    for k, v in pairs(t) do table.insert(parts, k .. "=" .. tostring(v)) end
    table.sort(parts)
    return "{" .. table.concat(parts, ",") .. "}"
end

-- Numbers as strictly as the plugin: a job whose client check was bypassed (no cli_filter.lua,
-- or the SPANK variable set by hand) reaches job_submit.lua with any text.
for _, text in ipairs({ "inf", "nan", "0x10", "1e3", " 4", "4 ", "+4", "4.0", "4294967297",
                        "-9223372036854775808", "1025", "0", "" }) do
    local job = { stages = lib.whole_number(text, lib.MAX_STAGES), stages_text = text, nodes = 8 }
    table.insert(cases, { "--pipeline-stages=" .. text .. " is refused", block, job,
        "--pipeline-stages=" .. text .. ": expected a whole number of stages from 1 to 1024" })
    local nvl_job = { nvl_group = lib.whole_number(text, lib.MAX_NVL_GROUP), nvl_group_text = text,
                      nodes = 8 }
    if text ~= "1025" then
        table.insert(cases, { "--nvl-group=" .. text .. " is refused", nvl, nvl_job,
            "--nvl-group=" .. text .. ": expected a whole number of nodes from 1 to 4096" })
    end
end
table.insert(cases, { "--pipeline-stages=0004 reads as 4", block,
    { stages = lib.whole_number("0004", lib.MAX_STAGES), stages_text = "0004", nodes = 8 }, {} })

local passed, failed = 0, 0
for _, c in ipairs(cases) do
    local name, hints, job, want = c[1], c[2], c[3], c[4]
    local req, err = lib.request(hints, job)
    local ok
    if type(want) == "string" then
        ok = req == nil and err ~= nil and string.find(err, want, 1, true) ~= nil
    else
        ok = req ~= nil and same(req, want)
    end
    if ok then
        passed = passed + 1
    else
        failed = failed + 1
        print(string.format("FAIL %s: got %s / %s, want %s", name, show(req), tostring(err), show(want)))
    end
end

-- Partitions with their own topologies (Slurm 25.05+ topology.yaml, partition Topology=): the
-- dfp16 fabric with the tree as the cluster default, "gpu" on the blocks, "cpu" flat.
local parted = { topology = "tree", su_size = 4, group_size = 8, groups = { "grp_g1", "grp_g2" },
                 spans = {}, block_size = 4, group_block_size = 8, default_partition = "debug",
                 partitions = { gpu = "block", cpu = "flat", debug = "tree" } }
local part_cases = {
    -- name, job, partitions, default partition (job_submit's from slurmctld), want, note fragment
    { "block partition: segments", { stages = 4, nodes = 8, scope = "leaf" }, "gpu", nil,
      { segment = 2, prefer = "[grp_g1|grp_g2]" } },
    { "tree partition: switches, no segment", { stages = 4, nodes = 8, scope = "leaf" }, "debug", nil,
      { switches = 4 } },
    { "no partition: the hints' default partition", { stages = 4, nodes = 8, scope = "leaf" }, nil, nil,
      { switches = 4 } },
    { "no partition: slurmctld's default partition first", { stages = 4, nodes = 8, scope = "leaf" }, nil, "gpu",
      { segment = 2, prefer = "[grp_g1|grp_g2]" } },
    { "a partition the hints do not name: the cluster default", { stages = 4, nodes = 8, scope = "leaf" }, "new", nil,
      { switches = 4 } },
    { "flat partition: nothing asked", { stages = 4, nodes = 8, scope = "leaf" }, "cpu", nil, {} },
    { "flat partition: still refuses what no partition can split", { stages = 3, nodes = 8, scope = "any" }, "cpu", nil,
      "needs a node count it divides" },
    { "block and tree: each its own field", { stages = 4, nodes = 8, scope = "leaf" }, "gpu,debug", nil,
      { segment = 2, switches = 4 }, "asked --segment=2 --switches=4; left out --prefer=[grp_g1|grp_g2]" },
    { "block and flat: segment kept, prefer left out", { stages = 4, nodes = 8, scope = "leaf" }, "gpu,cpu", nil,
      { segment = 2 }, "partitions gpu (block), cpu (flat) run different topologies" },
    { "tree and flat: a hard constraint only if both ask it", { stages = 2, nodes = 8, scope = "group" }, "debug,cpu", nil,
      {}, "left out --constraint=[grp_g1|grp_g2]" },
    { "one partition refuses: refused, named", { stages = 1, nodes = 8, scope = "leaf" }, "cpu,debug", nil,
      "partition debug (topology tree): --stage-scope=leaf: a stage of 8 nodes cannot fit one scalable unit" },
}
for _, c in ipairs(part_cases) do
    local name, job, parts, default, want, note_want = c[1], c[2], c[3], c[4], c[5], c[6]
    local req, err, note = lib.request_for(parted, job, parts, default)
    local ok
    if type(want) == "string" then
        ok = req == nil and err ~= nil and string.find(err, want, 1, true) ~= nil
    else
        ok = req ~= nil and same(req, want) and
             ((note_want == nil and note == nil) or (note_want ~= nil and note ~= nil and string.find(note, note_want, 1, true) ~= nil))
    end
    if ok then passed = passed + 1 else
        failed = failed + 1
        print(string.format("FAIL %s: got %s / %s / %s, want %s %s", name, show(req), tostring(err), tostring(note),
            show(want), tostring(note_want)))
    end
end

-- The audit's word in a job's AdminComment.
local function expect_marker(name, got, want)
    if got == want then passed = passed + 1 else
        failed = failed + 1; print(string.format("FAIL %s: got %s, want %s", name, tostring(got), want)) end
end
expect_marker("marker: stages and scope", lib.audit_marker({ stages = 4, scope = "leaf" }, {}),
    "switchyard:stages=4,scope=leaf")
expect_marker("marker: segment and nvl", lib.audit_marker({ stages = 2, nvl_group = 4 }, { segment = 8 }),
    "switchyard:stages=2,scope=any,segment=8,nvl=4")
expect_marker("marker: a switch count and its wait", lib.audit_marker({ stages = 4, scope = "leaf", switches = 4, switch_wait = 60 }, {}),
    "switchyard:stages=4,scope=leaf,switches=4@60")
expect_marker("marker: a switch count without its wait", lib.audit_marker({ stages = 2, switches = 2 }, {}),
    "switchyard:stages=2,scope=any,switches=2")
expect_marker("marker: the user's segment", lib.audit_marker({ stages = 2, segment = 4 }, {}),
    "switchyard:stages=2,scope=any,segment=4")
expect_marker("marker: our preference", lib.audit_marker({ stages = 2 }, { segment = 4, prefer = "[sy_g1|sy_g2]" }),
    "switchyard:stages=2,scope=any,segment=4,prefer=[sy_g1|sy_g2]")
expect_marker("marker: a preference with other words left out", lib.audit_marker({ stages = 2 }, { prefer = "[a,b]" }),
    "switchyard:stages=2,scope=any")
expect_marker("marker: a preference too long left out",
    lib.audit_marker({ stages = 2 }, { prefer = "[" .. string.rep("g", lib.MARKER_PREFER_MAX) .. "]" }),
    "switchyard:stages=2,scope=any")
expect_marker("with_marker: none yet", lib.with_marker(nil, "switchyard:stages=2,scope=any"),
    "switchyard:stages=2,scope=any")
expect_marker("with_marker: the site's words kept", lib.with_marker("site=x", "switchyard:stages=2,scope=any"),
    "site=x switchyard:stages=2,scope=any")
expect_marker("with_marker: ours replaced", lib.with_marker("a switchyard:stages=9,scope=leaf;b", "switchyard:stages=2,scope=any"),
    "a switchyard:stages=2,scope=any;b")

-- Shell quoting for cli_filter.lua's io.popen: a hostile node list stays one word.
local marker = os.tmpname()
os.remove(marker)
local hostile = "n1'; touch " .. marker .. "; echo '"
local p = io.popen("printf '%s' " .. lib.shell_quote(hostile))
local echoed = p:read("*a")
p:close()
local f = io.open(marker, "r")
if echoed == hostile and f == nil then passed = passed + 1 else
    failed = failed + 1; print("FAIL shell_quote: got " .. tostring(echoed)) end
if f ~= nil then f:close(); os.remove(marker) end

-- Hints that cannot be read: the empty tree hints and the reason.
local h, why = lib.load_hints("/nonexistent/switchyard-hints.lua")
if h.topology == "tree" and h.su_size == 0 and why ~= nil then passed = passed + 1 else
    failed = failed + 1; print("FAIL load_hints of a missing file") end

-- The hints are data: a hints file that tries to run code is refused by line, and runs nothing.
local function write(path, text) local w = assert(io.open(path, "w")); w:write(text); w:close() end
local hints_path = os.tmpname()
write(hints_path, "-- Written by switchyard discover.\nreturn {\n  topology = \"block\",\n  su_size = 4,\n" ..
    "  group_size = 8,\n  groups = { \"grp_g1\", \"grp_g2\" },\n  block_size = 4,\n  group_block_size = 8,\n}\n")
h, why = lib.load_hints(hints_path)
if why == nil and same(h, { topology = "block", su_size = 4, group_size = 8, groups = h.groups,
        spans = h.spans, block_size = 4, group_block_size = 8, nvl_size = 0, su_block_size = 0,
        nvl_domains = h.nvl_domains, partitions = h.partitions }) and #h.nvl_domains == 0
        and next(h.partitions) == nil and h.default_partition == nil and table.concat(h.groups, ",") == "grp_g1,grp_g2"
        and #h.spans == 0 then
    passed = passed + 1 else failed = failed + 1; print("FAIL load_hints of discover's hints: " .. tostring(why)) end
-- Runs of groups: sizes and names by span, sorted by span whatever the line order.
write(hints_path, "return {\n  topology = \"block\",\n  group_size = 8,\n  groups = { \"grp_g1\", \"grp_g2\", \"grp_g3\", \"grp_g4\", \"grp_g5\" },\n" ..
    "  groups_4 = { \"grp4_g1\" },\n  group_size_4 = 32,\n  group_size_2 = 16,\n  groups_2 = { \"grp2_g1\", \"grp2_g3\" },\n}\n")
h, why = lib.load_hints(hints_path)
if why == nil and #h.spans == 2 and h.spans[1].span == 2 and h.spans[1].size == 16
        and table.concat(h.spans[1].groups, ",") == "grp2_g1,grp2_g3" and h.spans[2].span == 4
        and h.spans[2].size == 32 and table.concat(h.spans[2].groups, ",") == "grp4_g1" then
    passed = passed + 1 else failed = failed + 1; print("FAIL load_hints of runs of groups: " .. tostring(why)) end
write(hints_path, "return {\n  groups_2 = { \"grp2_g1\" io.write(1) },\n}\n")
h, why = lib.load_hints(hints_path)
if #h.spans == 0 and why ~= nil and string.find(why, ":2: expected groups_2 = {", 1, true) then
    passed = passed + 1 else failed = failed + 1; print("FAIL load_hints of a bad groups_2 line: " .. tostring(why)) end
local pwned = os.tmpname()
os.remove(pwned)
write(hints_path, "return {\n  su_size = 4,\n  x = os.execute(\"touch " .. pwned .. "\"),\n}\n")
h, why = lib.load_hints(hints_path)
local ran = io.open(pwned, "r")
if h.su_size == 0 and why ~= nil and string.find(why, hints_path .. ":3: ", 1, true) and ran == nil then
    passed = passed + 1 else failed = failed + 1; print("FAIL load_hints ran or kept code: " .. tostring(why)) end
if ran ~= nil then ran:close(); os.remove(pwned) end
write(hints_path, "return {\n  groups = { \"a\", os.exit(3) },\n}\n")
h, why = lib.load_hints(hints_path)
if #h.groups == 0 and why ~= nil and string.find(why, ":2: expected groups", 1, true) then
    passed = passed + 1 else failed = failed + 1; print("FAIL load_hints of a bad groups line: " .. tostring(why)) end
-- Partition lines: each partition's kind and the default partition; an unknown kind is refused.
write(hints_path, "return {\n  topology = \"flat\",\n  default_partition = \"debug\",\n" ..
    "  partitions = { \"gpu-a100=block\", \"debug=tree\", \"x.y_z=other\" },\n}\n")
h, why = lib.load_hints(hints_path)
if why == nil and h.topology == "flat" and h.default_partition == "debug" and h.partitions["gpu-a100"] == "block"
        and h.partitions.debug == "tree" and h.partitions["x.y_z"] == "other" then
    passed = passed + 1 else failed = failed + 1; print("FAIL load_hints of partitions: " .. tostring(why)) end
write(hints_path, "return {\n  partitions = { \"gpu=torus\" },\n}\n")
h, why = lib.load_hints(hints_path)
if next(h.partitions) == nil and why ~= nil and string.find(why, ":2: expected partitions = {", 1, true) then
    passed = passed + 1 else failed = failed + 1; print("FAIL load_hints of an unknown kind: " .. tostring(why)) end
write(hints_path, string.rep("-- padding\n", 100000))
h, why = lib.load_hints(hints_path)
if why ~= nil and h.su_size == 0 and string.find(why, "larger than 1048576 bytes", 1, true) then
    passed = passed + 1 else failed = failed + 1; print("FAIL load_hints of a huge file: " .. tostring(why)) end
os.remove(hints_path)

-- The features slurm.conf gives: NodeName lines of slurm.conf and of what it Includes
-- (relative to slurm.conf's directory, nested), Feature= or Features=, quoted or not; comments
-- and other lines (NodeSet, partitions, scontrol's ActiveFeatures) give none.
local confdir = os.tmpname()
os.remove(confdir)
assert(os.execute("mkdir -p " .. lib.shell_quote(confdir .. "/sub")) == 0)
write(confdir .. "/slurm.conf", "ClusterName=x\n# NodeName=old Features=commented\nInclude sub/nodes.conf\n" ..
    "NodeName=DEFAULT CPUs=4 Feature=gpu\nnodename=n9 features=\"grp_g9,su_9\" # trailing\n" ..
    "NodeSet=ns Feature=nsfeat\nPartitionName=p Nodes=ALL\n")
write(confdir .. "/sub/nodes.conf", "NodeName=n[1-4] Port=1 Features=grp_g1,su_g1-leaf1 Weight=5\n" ..
    "NodeName=n[5-8] ActiveFeatures=x\n  include /dev/null\n")
local known, kwhy = conf.conf_features(confdir .. "/slurm.conf")
local names = {}
for k in pairs(known or {}) do table.insert(names, k) end
table.sort(names)
if kwhy == nil and table.concat(names, ",") == "gpu,grp_g1,grp_g9,su_9,su_g1-leaf1" then
    passed = passed + 1 else failed = failed + 1; print("FAIL conf_features: " .. table.concat(names, ",") .. " / " .. tostring(kwhy)) end
write(confdir .. "/slurm.conf", "ClusterName=x\nInclude missing.conf\n")
known, kwhy = conf.conf_features(confdir .. "/slurm.conf")
if known == nil and kwhy ~= nil and string.find(kwhy, confdir .. "/slurm.conf:2: Include: " .. confdir .. "/missing.conf", 1, true) then
    passed = passed + 1 else failed = failed + 1; print("FAIL conf_features of a missing Include: " .. tostring(kwhy)) end
write(confdir .. "/slurm.conf", "Include slurm.conf\n")
known, kwhy = conf.conf_features(confdir .. "/slurm.conf")
if known == nil and kwhy ~= nil and string.find(kwhy, "Include nested more than 4 files deep", 1, true) then
    passed = passed + 1 else failed = failed + 1; print("FAIL conf_features of an Include loop: " .. tostring(kwhy)) end
write(confdir .. "/slurm.conf", "Include sub/*.conf\n")
known, kwhy = conf.conf_features(confdir .. "/slurm.conf")
if known == nil and kwhy ~= nil and string.find(kwhy, ":1: Include sub/*.conf: a pattern", 1, true) then
    passed = passed + 1 else failed = failed + 1; print("FAIL conf_features of an Include pattern: " .. tostring(kwhy)) end
-- What slurmctld's own parser reads as empty is read as empty, without raising, waiting or
-- looping: an Include of a directory, of a FIFO no one writes, of /dev/zero.
assert(os.execute("mkfifo " .. lib.shell_quote(confdir .. "/fifo")) == 0)
write(confdir .. "/slurm.conf", "Include sub\nInclude fifo\nInclude /dev/zero\nNodeName=n1 Features=kept\n")
known, kwhy = conf.conf_features(confdir .. "/slurm.conf")
if kwhy == nil and known ~= nil and known.kept then
    passed = passed + 1 else failed = failed + 1; print("FAIL conf_features of odd Includes: " .. tostring(kwhy)) end
-- The bound is the file's size, NUL bytes and all (a NUL used to end a line's count early).
local bound = conf.MAX_CONF_BYTES
conf.MAX_CONF_BYTES = 1000
write(confdir .. "/sub/nul.conf", "NodeName=n2 Features=a\n" .. string.rep("\0", 2000) .. "\n")
write(confdir .. "/slurm.conf", "Include sub/nul.conf\n")
known, kwhy = conf.conf_features(confdir .. "/slurm.conf")
conf.MAX_CONF_BYTES = bound
if known == nil and kwhy ~= nil and string.find(kwhy, "nul.conf: larger than 1000 bytes", 1, true) then
    passed = passed + 1 else failed = failed + 1; print("FAIL conf_features of NUL bytes: " .. tostring(kwhy)) end
-- Lines as Slurm reads them: a trailing backslash continues the line, "\\#" is a '#' and no
-- comment, a quoted value is one value (Reason="... feature=x" gives no feature x).
write(confdir .. "/slurm.conf", "NodeName=n1 CPUs=4 \\\n  Features=cont1,cont2\n" ..
    "NodeName=n2 Reason=\"down, feature=wrong\" Features=q1 State=DOWN\n" ..
    "NodeName=n3 Features=hash\\#tag # a comment Features=no\n" ..
    "NodeName=n4 Comment=\"a b\" feature=\"z1,z2\"\n")
known, kwhy = conf.conf_features(confdir .. "/slurm.conf")
names = {}
for k in pairs(known or {}) do table.insert(names, k) end
table.sort(names)
if kwhy == nil and table.concat(names, ",") == "cont1,cont2,hash#tag,q1,z1,z2" then
    passed = passed + 1 else failed = failed + 1; print("FAIL conf_features as Slurm reads lines: " .. table.concat(names, ",") .. " / " .. tostring(kwhy)) end
-- An error anywhere under conf_features becomes a reason, never an error out of it.
local saved_open_lines = conf.open_lines
conf.open_lines = function() error("reader broke") end
local ok, set, raised_why = pcall(conf.conf_features, confdir .. "/slurm.conf")
conf.open_lines = saved_open_lines
if ok and set == nil and raised_why ~= nil and string.find(raised_why, "reader broke", 1, true) then
    passed = passed + 1 else failed = failed + 1; print("FAIL conf_features raised: " .. tostring(set)) end
os.execute("rm -rf " .. lib.shell_quote(confdir))

-- A request whose features slurmctld lacks loses its constraint and preference, and says why;
-- the rest of it (segments, switches) stays.
local have = { grp_g1 = true, grp_g2 = true }
local kept, dropped_note = lib.without_unknown_features({ segment = 2, prefer = "[grp_g1|grp_g2]" }, have)
if same(kept, { segment = 2, prefer = "[grp_g1|grp_g2]" }) and dropped_note == nil then
    passed = passed + 1 else failed = failed + 1; print("FAIL without_unknown_features kept: " .. show(kept)) end
kept, dropped_note = lib.without_unknown_features({ segment = 4, prefer = "[grp2_g1|grp2_g3]" }, have)
if same(kept, { segment = 4 }) and dropped_note ~= nil and string.find(dropped_note,
        "runs without --prefer=[grp2_g1|grp2_g3]: no NodeName line of slurm.conf gives the features grp2_g1, grp2_g3", 1, true) then
    passed = passed + 1 else failed = failed + 1; print("FAIL without_unknown_features prefer: " .. show(kept) .. " " .. tostring(dropped_note)) end
kept, dropped_note = lib.without_unknown_features({ switches = 2, features = "[grp_g1|grp_g7]" }, have)
if same(kept, { switches = 2 }) and dropped_note ~= nil and string.find(dropped_note,
        "runs without --constraint=[grp_g1|grp_g7]: no NodeName line of slurm.conf gives the feature grp_g7,", 1, true) then
    passed = passed + 1 else failed = failed + 1; print("FAIL without_unknown_features constraint: " .. tostring(dropped_note)) end
kept, dropped_note = lib.without_unknown_features({ prefer = "[a|b|c|d|e]" }, nil, "slurm.conf: Permission denied")
if same(kept, {}) and dropped_note ~= nil and string.find(dropped_note,
        "slurm.conf's node features could not be read (slurm.conf: Permission denied)", 1, true) then
    passed = passed + 1 else failed = failed + 1; print("FAIL without_unknown_features unknown: " .. tostring(dropped_note)) end
kept, dropped_note = lib.without_unknown_features({ prefer = "[a|b|c|d|e]" }, {})
if same(kept, {}) and dropped_note ~= nil and string.find(dropped_note, "features a, b, c (and 2 more)", 1, true) then
    passed = passed + 1 else failed = failed + 1; print("FAIL without_unknown_features many: " .. tostring(dropped_note)) end

-- The hints of a fabric with NVLink domains, as discover writes them (discover/nvl-dfp16).
local nvl_path = os.tmpname()
local golden = assert(io.open(etc .. "/../tests/golden/discover/nvl-dfp16/job_submit_hints.lua.expected", "r"))
write(nvl_path, golden:read("*a"))
golden:close()
h, why = lib.load_hints(nvl_path)
os.remove(nvl_path)
if why == nil and h.nvl_size == 2 and h.su_block_size == 4 and h.block_size == 2
        and table.concat(h.nvl_domains, ",") == table.concat(nvl_names, ",") then
    passed = passed + 1 else failed = failed + 1; print("FAIL load_hints of NVLink hints: " .. tostring(why)) end

-- Deciding is pure: the modules loaded with no io and no os still parse hints, read
-- slurm.conf's features through the lines they are handed, and make requests; only their
-- reading parts would need a file.
do
    local chunk = assert(loadfile(etc .. "/switchyard_stages.lua"))
    local sandbox = { string = string, table = table, math = math, pairs = pairs, ipairs = ipairs,
                      tostring = tostring, tonumber = tonumber, type = type, next = next }
    setfenv(chunk, sandbox)
    local pure = chunk()
    local ph, pwhy = pure.parse_hints("return {\n  topology = \"block\",\n  su_size = 4,\n  group_size = 8,\n" ..
        "  groups = { \"grp_g1\", \"grp_g2\" },\n  block_size = 4,\n  group_block_size = 8,\n}\n", "mem")
    local req = pwhy == nil and pure.request_for(ph, { stages = 2, nodes = 8, scope = "any" }) or nil
    local files = { ["/c/slurm.conf"] = { "NodeName=a Features=x,y", "Include more.conf" },
                    ["/c/more.conf"] = { "NodeName=b Feature=z # w" } }
    local function open_lines(file)
        local lines, i = files[file], 0
        if lines == nil then return nil, file .. ": No such file or directory" end
        return function() i = i + 1; return lines[i] end, function() end
    end
    local conf_chunk = assert(loadfile(etc .. "/switchyard_conf.lua"))
    setfenv(conf_chunk, sandbox)
    local pure_conf = conf_chunk()
    local found, kwhy2 = pure_conf.features_of_conf("/c/slurm.conf", open_lines)
    local _, missing_why = pure_conf.features_of_conf("/c/none.conf", open_lines)
    if pwhy == nil and req ~= nil and found ~= nil and found.x and found.y and found.z and not found.w
            and kwhy2 == nil and missing_why == "/c/none.conf: No such file or directory"
            and sandbox.io == nil and sandbox.os == nil then
        passed = passed + 1
    else
        failed = failed + 1; print("FAIL the deciding part without io and os: " .. tostring(pwhy or kwhy2))
    end
end

-- Every hints file the golden discover cases expect, read back: it parses, and its groups and
-- NVLink domains are those of the case's fabric map.
local goldens = 0
for i = 2, #arg do
    local case = arg[i]
    local hf = assert(io.open(case .. "/job_submit_hints.lua.expected", "r"))
    local text = hf:read("*a")
    hf:close()
    local gh, gwhy = lib.parse_hints(text, case)
    -- The map, where the case keeps one (a case that checks only the hints has none).
    local map = io.open(case .. "/fabric.map.expected", "r")
    local groups, domains = gh.groups, gh.nvl_domains
    if map ~= nil then
        groups, domains = {}, {}
        for line in map:lines() do
            local g = string.match(line, "^group (%S+)")
            local d = string.match(line, "^nvl (%S+)")
            if g ~= nil then table.insert(groups, "grp_" .. g) end
            if d ~= nil then table.insert(domains, d) end
        end
        map:close()
    end
    if gwhy == nil and lib.KINDS[gh.topology] and gh.su_size > 0
            and (#gh.groups == 0 or table.concat(gh.groups, ",") == table.concat(groups, ","))
            and table.concat(gh.nvl_domains, ",") == table.concat(domains, ",")
            and (#gh.nvl_domains == 0) == (gh.nvl_size == 0) then
        passed = passed + 1
    else
        failed = failed + 1; print("FAIL golden hints " .. case .. ": " .. tostring(gwhy))
    end
    goldens = goldens + 1
end
if #arg > 1 and goldens < 3 then
    failed = failed + 1; print("FAIL golden hints: only " .. goldens .. " cases given")
end

print(string.format("%d passed, %d failed", passed, failed))
os.exit(failed == 0 and 0 or 1)
