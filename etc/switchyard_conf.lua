-- SPDX-License-Identifier: Apache-2.0
-- The node features slurm.conf gives, for job_submit.lua (slurmctld, Lua 5.1): the Feature= words
-- of its NodeName lines and of the files it Includes, read as slurmctld's own parser reads them.
-- Install next to job_submit.lua. Two parts, kept apart:
--   deciding (pure: lines in, features out; tests/lua/stages_test.lua loads this file with no
--   `io` and no `os`): features_of_conf, over a function that gives a file's lines;
--   reading (files, at the end of this file): file_kind, open_lines, conf_features.

local M = {}

local function fmt(...) return string.format(...) end

--- One shell word for io.popen: quoted whole, a quote inside stays text.
local function shell_quote(s)
    return "'" .. (string.gsub(tostring(s), "'", "'\\''")) .. "'"
end

M.MAX_CONF_BYTES = 64 * 1048576
M.MAX_INCLUDE_DEPTH = 4

--- A physical line of slurm.conf without its comment: everything from the first '#' that an
--- even number of backslashes precede, as Slurm's parser strips it ("\\#" is a '#').
local function strip_comment(l)
    local at = string.find(l, "#", 1, true)
    while at ~= nil do
        local bs = 0
        while at - bs > 1 and string.byte(l, at - bs - 1) == 92 do bs = bs + 1 end
        if bs % 2 == 0 then return string.sub(l, 1, at - 1) end
        at = string.find(l, "#", at + 1, true)
    end
    return l
end

--- The line without its continuation mark, and whether it had one: an odd number of
--- backslashes at its end (blanks after them allowed), as Slurm reads it.
local function continued(l)
    local body, marks = string.match(l, "^(.-)(\\+)%s*$")
    if marks == nil or #marks % 2 == 0 then return l, false end
    return body .. string.rep("\\", #marks - 1), true
end

--- The value of a NodeName line's Feature= or Features= key: Slurm's key=value pairs, a value
--- either "quoted" (blanks and '=' inside are text: Reason="... feature=x" names no feature)
--- or up to the next blank; keys compared without case.
local function feature_value(l)
    if not string.find(l, '"', 1, true) then
        -- No quote on the line: a plain search first (the pattern alone tries every blank).
        local low, e, _ = string.lower(l), nil, nil
        local at = string.find(low, "feature", 1, true)
        while at ~= nil and e == nil do
            if at > 1 and string.find(string.sub(low, at - 1, at - 1), "%s") then
                _, e = string.find(low, "^features?%s*=", at)
            end
            if e == nil then at = string.find(low, "feature", at + 7, true) end
        end
        return e ~= nil and string.match(string.sub(l, e + 1), "^%s*(%S*)") or nil
    end
    local pos, found = 1, nil
    while pos <= #l do
        local _, e, key = string.find(l, "^%s*([%w_%.]+)%s*[%-%*%+/]?=%s*", pos)
        if e == nil then
            local _, we = string.find(l, "^%s*%S+", pos)
            if we == nil then break end
            local q = string.find(l, '"', pos, true) -- a quoted word: skip to its end
            if q ~= nil and q <= we then we = (string.find(l, '"', q + 1, true) or #l) end
            pos = we + 1
        else
            local value
            if string.sub(l, e + 1, e + 1) == '"' then
                local q = string.find(l, '"', e + 2, true) or (#l + 1)
                value, pos = string.sub(l, e + 2, q - 1), q + 1
            else
                local ve = string.find(l, "%s", e + 1) or (#l + 1)
                value, pos = string.sub(l, e + 1, ve - 1), ve
            end
            local k = string.lower(key)
            if k == "feature" or k == "features" then found = value end
        end
    end
    return found
end

--- The node features slurm.conf gives: the Feature= (or Features=) words of its NodeName lines
--- and of the files it Includes (a relative path from slurm.conf's directory), which is what
--- slurmctld knows after it starts or reconfigures (features set with scontrol are gone after a
--- restart, so they do not count). Lines are read as Slurm reads them: comments from an
--- unescaped '#', a trailing '\\' continues the line, a backslash escapes the next character.
--- `open_lines(file)` gives an iterator over a file's lines and a function that closes it, or
--- nil and why. Returns the set of names, or nil and why (file, line).
function M.features_of_conf(path, open_lines)
    local set, values = {}, {}
    local dir = string.match(path, "^(.*/)") or "./"
    local function scan(file, depth, from)
        if depth > M.MAX_INCLUDE_DEPTH then
            return fmt("%s: Include nested more than %d files deep", from, M.MAX_INCLUDE_DEPTH)
        end
        local lines, close = open_lines(file)
        if lines == nil then return fmt("%s%s", depth > 0 and (from .. ": Include: ") or "", tostring(close)) end
        local n, bytes, pending = 0, 0, nil
        for line in lines do
            n = n + 1
            bytes = bytes + #line + 1
            if bytes > M.MAX_CONF_BYTES then
                close()
                return fmt("%s:%d: larger than %d bytes", file, n, M.MAX_CONF_BYTES)
            end
            local l = line
            if string.find(l, "#", 1, true) then l = strip_comment(l) end
            if pending ~= nil then l, pending = pending .. l, nil end
            if string.find(l, "\\", 1, true) then
                local more
                l, more = continued(l)
                if more then pending = l end
                l = string.gsub(l, "\\(.?)", "%1")
            end
            if pending ~= nil then -- luacheck: ignore 542 (the rest comes with the next line)
            elseif string.find(l, "^%s*[Ii][Nn][Cc][Ll][Uu][Dd][Ee]%s+%S") then
                local target = string.match(l, "^%s*%a+%s+(%S+)")
                if string.find(target, "[%*%?%[%%]") then
                    close()
                    return fmt("%s:%d: Include %s: a pattern; switchyard reads named files only", file, n, target)
                end
                if string.sub(target, 1, 1) ~= "/" then target = dir .. target end
                local why = scan(target, depth + 1, fmt("%s:%d", file, n))
                if why ~= nil then
                    close()
                    return why
                end
            elseif string.find(l, "^%s*[Nn][Oo][Dd][Ee][Nn][Aa][Mm][Ee]%s*=") then
                local value = feature_value(l)
                if value ~= nil and not values[value] then -- lines of one SU repeat their features
                    values[value] = true
                    for name in string.gmatch(value, "[^,]+") do set[name] = true end
                end
            end
        end
        close()
        return nil
    end
    local why = scan(path, 0, path)
    if why ~= nil then return nil, why end
    return set, nil
end

-- Reading: the only part of this file that touches files.

M.STAT = "/usr/bin/stat"

--- What `file` is and its size, links followed, as stat(1) says ("regular file", 1234), or nil
--- and stat's words: asked by absolute path, with no environment and 5 seconds to answer (only
--- a stat: opening a FIFO to look would wait for a writer).
function M.file_kind(file)
    local p = io.popen("/usr/bin/env -i /usr/bin/timeout 5 " .. M.STAT .. " -L -c '%F|%s' -- "
        .. shell_quote(file) .. " 2>&1")
    if p == nil then return nil, "cannot run " .. M.STAT end
    local out = p:read(4096) or ""
    p:close()
    local kind, size = string.match(out, "^([%a ]+)|(%d+)\n?$")
    if kind == nil then return nil, (string.gsub(out, "%s+$", "")) end
    return kind, tonumber(size)
end

--- A file's lines and a function that closes it, or nil and why. Only a regular file within
--- MAX_CONF_BYTES is opened; a directory, FIFO or device reads as empty, as Slurm's own parser
--- reads them (it stats first and skips what has no size).
function M.open_lines(file)
    local kind, size = M.file_kind(file)
    if kind == nil then
        local f, err = io.open(file, "r") -- no such file, no permission: io's own words
        if f ~= nil then
            f:close()
            err = fmt("%s: cannot tell what it is (%s)", file, tostring(size))
        end
        return nil, err
    end
    if kind ~= "regular file" and kind ~= "regular empty file" then
        return function() return nil end, function() end
    end
    if size > M.MAX_CONF_BYTES then
        return nil, fmt("%s: larger than %d bytes", file, M.MAX_CONF_BYTES)
    end
    local f, err = io.open(file, "r")
    if f == nil then return nil, err end
    return f:lines(), function() f:close() end
end

--- The node features of the slurm.conf at `path` and its Includes (features_of_conf), never
--- raising: slurmctld runs this when it loads job_submit.lua, where an error would leave it
--- without the script. Returns the set, or nil and why.
function M.conf_features(path)
    local ok, set, why = pcall(M.features_of_conf, path, M.open_lines)
    if not ok then return nil, tostring(set) end
    return set, why
end

return M
