--[[
iashim's node choice for Slurm: a job_submit/lua script.

A job submitted with --iashim (sbatch, salloc and srun pass the SPANK plugin's
options to slurmctld in the job's SPANK environment) is
offered to the iashim coordinator, which answers with the node its
interference-aware placement would choose; that node becomes the job's
required node (as --nodelist would), or with IASHIM_SUBMIT_NODE_CHOICE=prefer
its preferred one (as --prefer would: Slurm starts it elsewhere when that node
is busy; each node must then carry its own name as a feature, Features=NAME in
its NodeName line). The GPU on that node is chosen later, in
the task, by the SPANK plugin. A job that asks for several GPUs of a node
(--gres=gpu:N, --gpus-per-node=N) is asked for as a gang of N: the node is one
with N GPUs that can take it.

Install: copy to job_submit.lua beside slurm.conf and set JobSubmitPlugins=lua.
Settings, from slurmctld's environment:
  IASHIM_BIN          the iashim command (default: iashim on PATH)
  IASHIM_COORDINATOR  the coordinator's endpoint (default: iashim's own)
  IASHIM_COORDINATOR_KEY  its CurveZMQ public key, beyond loopback
  IASHIM_SUBMIT_TIMEOUT_S how long one submission may wait for it (default 1)
  IASHIM_SUBMIT_NODE_CHOICE  require (default) or prefer (above)
  IASHIM_GUARANTEED_GRES  a count-only GRES each node has as many of as GPUs
                      (e.g. iashim_guaranteed; default: none): every guaranteed
                      --iashim job, and every --iashim gang (gpu:k, k > 1),
                      asks for one per GPU it uses on a node, so that Slurm
                      starts neither where the node's guaranteed jobs and
                      gangs would need more GPUs than it has. Slurm 22.05
                      gives a gang's gpu:k GPUs whose shards are in use: two
                      guaranteed jobs on one GPU cannot both keep their
                      targets, and an opportunistic gang runs at the pace of
                      its rank held beside a guaranteed job; this keeps such a
                      gang pending until a node has room for it.

Limits (README: "Running on Slurm"): the node is decided when the job is
submitted, not when it starts, and a pending job stays bound to that node
(unless the choice is a preference);
a user's own --nodelist wins; a coordinator that does not answer costs each
--iashim submission up to the timeout and leaves the choice to Slurm; a job
of several nodes asks for whole nodes (each with the same GPUs, as srun -N 2
--gres=gpu:4 does), and the coordinator names them all; one with other
shapes (a node range, no GPUs) is left to Slurm.
--]]

local IASHIM = os.getenv("IASHIM_BIN") or "iashim"
local TIMEOUT_S = tonumber(os.getenv("IASHIM_SUBMIT_TIMEOUT_S") or "") or 1
-- Anything but "prefer" requires the node: a preference names a feature that
-- a node without it would make Slurm reject the job for.
local NODE_CHOICE = os.getenv("IASHIM_SUBMIT_NODE_CHOICE") or "require"
local PREFER_NODE = NODE_CHOICE == "prefer"
-- Empty: no such GRES (the site has not defined one).
local GUARANTEED_GRES = os.getenv("IASHIM_GUARANTEED_GRES") or ""
if GUARANTEED_GRES ~= "" and not string.match(GUARANTEED_GRES, "^[%a][%w_]*$") then
  slurm.log_error("iashim: IASHIM_GUARANTEED_GRES='%s' is not a GRES name (letters, digits, '_'); " ..
                  "asking for none (fix slurmctld's environment)", GUARANTEED_GRES)
  GUARANTEED_GRES = ""
end
if NODE_CHOICE ~= "prefer" and NODE_CHOICE ~= "require" then
  slurm.log_error("iashim: IASHIM_SUBMIT_NODE_CHOICE='%s' is neither 'require' nor 'prefer'; " ..
                  "requiring the node (fix slurmctld's environment)", NODE_CHOICE)
end

-- One shell word, whatever the text holds.
local function quote(text)
  return "'" .. string.gsub(text, "'", "'\\''") .. "'"
end

-- The plugin's options as sbatch/salloc/srun pass them to slurmctld, in the
-- job's SPANK environment (job_desc.spank_job_env, "NAME=value" entries):
-- _SLURM_SPANK_OPTION_iashim_<option>=<value> (a '-' in the option's name may
-- come as '_'; "(null)" for --iashim with no value), and SPANK_IASHIM* as the
-- plugin also sets them.
local OPTION_NAMES = {
  ["_SLURM_SPANK_OPTION_iashim_iashim"] = "IASHIM",
  ["_SLURM_SPANK_OPTION_iashim_iashim_mem"] = "IASHIM_MEM_TEXT",
  ["_SLURM_SPANK_OPTION_iashim_iashim_kind"] = "IASHIM_KIND",
  ["SPANK_IASHIM"] = "IASHIM",
  ["SPANK_IASHIM_MEM"] = "IASHIM_MEM",
  ["SPANK_IASHIM_KIND"] = "IASHIM_KIND",
}
local function iashim_options(job_desc)
  local env = job_desc.spank_job_env
  if env == nil then return nil end
  local options = {}
  for _, entry in pairs(env) do
    local name, value = string.match(entry, "^([^=]+)=(.*)$")
    local key = name and OPTION_NAMES[string.gsub(name, "%-", "_")]
    if key ~= nil then options[key] = value end
  end
  if options.IASHIM == nil then return nil end
  slurm.log_debug("iashim: job options %s %s %s", options.IASHIM,
                  tostring(options.IASHIM_MEM or options.IASHIM_MEM_TEXT), tostring(options.IASHIM_KIND))
  if options.IASHIM == "(null)" or options.IASHIM == "" then options.IASHIM = "guaranteed" end
  return options
end

-- Whole GPUs of one node the job asks for: the count of its "gpu" entry in
-- tres_per_node ("gres/gpu:4", "gres:gpu:v100:4", "gpu:4"; no count = 1), 0
-- when it names none (a shard job).
local function whole_gpus_per_node(job_desc)
  local spec = job_desc.tres_per_node
  if spec == nil or spec == "" then return 0 end
  for entry in string.gmatch(spec, "[^,]+") do
    local gres = string.gsub(entry, "^gres[:/]", "")
    if gres == "gpu" or string.sub(gres, 1, 4) == "gpu:" then
      return tonumber(string.match(gres, ":(%d+)$") or "1") or 1
    end
  end
  return 0
end

-- GPUs of one node the job uses: its whole GPUs, or a shard job's one.
local function gpus_per_node(job_desc)
  return math.max(whole_gpus_per_node(job_desc), 1)
end

-- Whether the job asks for IASHIM_GUARANTEED_GRES: a guaranteed job, or a
-- gang (the coordinator's policy::AsksGuaranteedGres).
local function asks_guaranteed_gres(job_desc, options)
  return GUARANTEED_GRES ~= "" and
         (options.IASHIM == "guaranteed" or whole_gpus_per_node(job_desc) > 1)
end

-- What `iashim place --dry-run` says: "placed" and its key: value lines, or
-- "queued: why" / "refused: why"; nil and a reason when it could not ask.
local function ask_coordinator(job_desc, options, gpus)
  if options.IASHIM ~= "guaranteed" and options.IASHIM ~= "opportunistic" then
    return nil, "bad SPANK_IASHIM '" .. options.IASHIM .. "'"
  end
  local args = { IASHIM, "place", "--dry-run", "--priority", options.IASHIM,
                 "--timeout-s", tostring(TIMEOUT_S) }
  -- The plugin's byte count, else the user's text (iashim checks it).
  local mem = options.IASHIM_MEM or options.IASHIM_MEM_TEXT
  if mem ~= nil and mem ~= "" and mem ~= "(null)" then
    table.insert(args, "--mem")
    table.insert(args, mem)
  end
  if options.IASHIM_KIND ~= nil and options.IASHIM_KIND ~= "" then
    table.insert(args, "--kind")
    table.insert(args, options.IASHIM_KIND)
  end
  if gpus > 1 then
    table.insert(args, "--gpus")
    table.insert(args, tostring(gpus))
  end
  -- Slurm counts the node's guaranteed GPUs (ask_guaranteed_gres): the
  -- coordinator names no node where that count has no room for this job.
  if asks_guaranteed_gres(job_desc, options) then
    table.insert(args, "--guaranteed-gres")
  end
  local words = {}
  for i, a in ipairs(args) do words[i] = quote(a) end
  local pipe = io.popen(table.concat(words, " ") .. " 2>&1", "r")
  if pipe == nil then return nil, "could not run " .. IASHIM end
  local answer = { lines = {} }
  for line in pipe:lines() do
    table.insert(answer.lines, line)
    local key, value = string.match(line, "^([%w_]+): (.*)$")
    if key ~= nil then answer[key] = value end
  end
  pipe:close()
  answer.outcome = answer.lines[1] or ""
  return answer
end

-- Binds the job to `hosts` (the node, or a job's several nodes): required,
-- or preferred as a set of features (each node carries its name as one) when
-- the choice is a preference. Returns how ("goes to", "prefers"), or nil,
-- logged, when the job has a --prefer of its own (it wins).
local function bind(job_desc, hosts, submit_uid, name)
  if PREFER_NODE and job_desc.prefer ~= nil and job_desc.prefer ~= "" then
    slurm.log_info("iashim: job of uid %d has its own --prefer (%s); Slurm places it [%s]",
                   submit_uid, job_desc.prefer, name)
    return nil
  elseif PREFER_NODE then
    job_desc.prefer = table.concat(hosts, "|")
    return "prefers"
  end
  job_desc.req_nodes = table.concat(hosts, ",")
  return "goes to"
end

-- A job of several nodes: the nodes the coordinator named (its "hosts"
-- line), all required, or preferred as a set of features (each node carries
-- its name as one) when the choice is a preference. Queued (no whole nodes
-- now), it may name those it would take once the gangs there end
-- ("prefer_hosts"): a preference only, for Slurm to follow when they free.
local function bind_to_nodes(job_desc, answer, nodes, gpus, submit_uid)
  local name = tostring(job_desc.name or "")
  local hosts = {}
  local named = nil
  if answer.outcome == "placed" then
    named = answer.hosts
  elseif PREFER_NODE and string.sub(answer.outcome, 1, 7) == "queued:" then
    named = answer.prefer_hosts
  end
  if named ~= nil then
    for host in string.gmatch(named, "[^,]+") do
      if not string.match(host, "^[%w._-]+$") then hosts = {} break end
      table.insert(hosts, host)
    end
  end
  if #hosts ~= nodes then
    slurm.log_info("iashim: no %d nodes from the coordinator for a job of %d GPUs (%s); Slurm chooses them [%s]",
                   nodes, gpus, table.concat(answer.lines, " | "), name)
    return slurm.SUCCESS
  end
  local how = bind(job_desc, hosts, submit_uid, name)
  if how == nil then return slurm.SUCCESS end
  slurm.log_info("iashim: job of uid %d, %d GPUs on %d nodes, %s nodes %s [%s]",
                 submit_uid, gpus, nodes, how, table.concat(hosts, ","), name)
  return slurm.SUCCESS
end

-- A guaranteed job's or a gang's share of its nodes' guaranteed GPUs
-- (IASHIM_GUARANTEED_GRES): one per GPU it uses on each node, a shard job one.
local function ask_guaranteed_gres(job_desc, options, submit_uid)
  if not asks_guaranteed_gres(job_desc, options) then return end
  local spec = job_desc.tres_per_node or ""
  for entry in string.gmatch(spec, "[^,]+") do
    local gres = string.gsub(entry, "^gres[:/]", "")
    if gres == GUARANTEED_GRES or string.sub(gres, 1, #GUARANTEED_GRES + 1) == GUARANTEED_GRES .. ":" then
      return  -- asked for already (by the user, or resubmitted)
    end
  end
  local entry = string.format("gres:%s:%d", GUARANTEED_GRES, gpus_per_node(job_desc))
  job_desc.tres_per_node = spec == "" and entry or (spec .. "," .. entry)
  slurm.log_debug("iashim: job of uid %d asks for %s", submit_uid, entry)
end

function slurm_job_submit(job_desc, part_list, submit_uid)
  local options = iashim_options(job_desc)
  if options == nil then return slurm.SUCCESS end
  ask_guaranteed_gres(job_desc, options, submit_uid)
  if job_desc.req_nodes ~= nil and job_desc.req_nodes ~= "" then
    slurm.log_info("iashim: job of uid %d names its nodes (%s); Slurm places it",
                   submit_uid, job_desc.req_nodes)
    return slurm.SUCCESS
  end
  -- Slurm's "not set" is a huge number.
  local nodes = tonumber(job_desc.min_nodes or 1) or 1
  if nodes >= 0xFFFFFFF0 then nodes = 1 end
  local max_nodes = tonumber(job_desc.max_nodes or nodes) or nodes
  local per_node = gpus_per_node(job_desc)
  if nodes > 1 and (per_node < 2 or (max_nodes < 0xFFFFFFF0 and max_nodes ~= nodes)) then
    slurm.log_info("iashim: job of uid %d asks for %d nodes of %d GPU(s) each (at most %d nodes); Slurm places it",
                   submit_uid, nodes, per_node, max_nodes)
    return slurm.SUCCESS
  end
  -- A job of several nodes, each with the same GPUs (srun -N 2 --gres=gpu:4):
  -- the coordinator names whole nodes for all of its GPUs.
  local gpus = per_node * nodes
  slurm.log_debug("iashim: tres_per_node %s: %d GPU(s) of a node", tostring(job_desc.tres_per_node), per_node)
  if gpus > 64 then  -- iashim place --gpus: at most 64
    slurm.log_info("iashim: job of uid %d asks for %d GPUs in all, past the coordinator's 64; Slurm places it",
                   submit_uid, gpus)
    return slurm.SUCCESS
  end
  local answer, why = ask_coordinator(job_desc, options, gpus)
  if answer == nil then
    slurm.log_info("iashim: %s; Slurm chooses the node", why)
    return slurm.SUCCESS
  end
  -- The job has no id yet: its name tells the log's reader which it is.
  local name = tostring(job_desc.name or "")
  if nodes > 1 then
    return bind_to_nodes(job_desc, answer, nodes, gpus, submit_uid)
  end
  if answer.outcome == "placed" and answer.host ~= nil and
     string.match(answer.host, "^[%w._-]+$") then
    local how = bind(job_desc, { answer.host }, submit_uid, name)
    if how == nil then return slurm.SUCCESS end
    if gpus > 1 then
      slurm.log_info("iashim: job of uid %d, a gang of %d GPUs, %s node %s (GPUs %s there now) [%s]",
                     submit_uid, gpus, how, answer.host, answer.gpus or "?", name)
    else
      slurm.log_info("iashim: job of uid %d %s node %s (GPU %s there now) [%s]",
                     submit_uid, how, answer.host, answer.gpu or "?", name)
    end
  else
    -- Queued, refused or no answer: Slurm decides, and the plugin asks again
    -- when the job starts.
    slurm.log_info("iashim: no node from the coordinator (%s); Slurm chooses the node [%s]",
                   table.concat(answer.lines, " | "), name)
  end
  return slurm.SUCCESS
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
  return slurm.SUCCESS
end

slurm.log_info("iashim: job_submit.lua loaded (iashim: %s)", IASHIM)
return slurm.SUCCESS
