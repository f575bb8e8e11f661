// SPDX-License-Identifier: Apache-2.0
// Hook logic of spank_switchyard.so: argument checks, option validation, variable export.
#include "hooks.hpp"

#include <ctime>
#include <filesystem>
#include <string>

#include "health_gate.hpp"
#include "plan_hooks.hpp"
#include "plugin_args.hpp"
#include "plugin_state.hpp"
#include "preflight_gate.hpp"
#include "step_cache.hpp"
#include "step_record.hpp"
#include "switchyard/common/hostlist.hpp"
#include "switchyard/common/strings.hpp"
#include "switchyard/nccl/rules.hpp"
#include "switchyard/node/node_readers.hpp"
#include "switchyard/policy/loaders.hpp"
#include "switchyard/policy/step_input.hpp"

namespace switchyard::spank {
namespace {

/// Parses the plugstack words; logs a failure naming plugstack.conf.
std::optional<PluginArgs> load_args(Logger& log, const PluginWords& words) {
    auto args = parse_plugin_args(words);
    if (!args) {
        log.error(Component::Plugin, args.error().message());
        return std::nullopt;
    }
    return std::move(*args);
}

/// The user's options over the admin's defaults.
Result<JobOptions> resolve_options(SpankApi& api, const PluginArgs& args) {
    JobOptions opts = args.defaults;
    for (const auto& spec : kJobOptions) {
        const auto value = api.get_option(spec);
        if (!value) {
            continue;
        }
        if (auto r = apply_option(opts, spec.id, *value); !r) {
            return fail(r.error());
        }
    }
    return opts;
}

nccl::JobFacts job_facts(SpankApi& api, const nccl::NcclPolicy& nccl) {
    nccl::JobFacts job;
    job.this_host = api.node_name();
    for (const char* var : {"SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST"}) {
        if (auto list = api.getenv(var)) {
            if (auto hosts = expand_hostlist(*list)) {
                job.hosts = std::move(*hosts);
                break;
            }
        }
    }
    if (job.hosts.empty()) {
        job.hosts = {job.this_host};
    }
    job.tasks_per_node = std::max<std::uint32_t>(1, api.local_task_count());
    // Only where NCCL Inspector may be on: the job's id makes the step its own (the step cache
    // is not used for it), and every other step stays cacheable.
    if (!nccl.inspector.partitions.empty()) {
        if (auto part = api.getenv("SLURM_JOB_PARTITION"); part && part->size() < 4096) {
            job.partition = *part;
        }
        if (api.job_id() != 0) {
            job.job_id = std::to_string(api.job_id());
        }
    }
    // "0,1,2,3": the GPUs Slurm gave the job on this node (bounded: it is the job's environment).
    if (const auto gpus = api.getenv("SLURM_JOB_GPUS");
        gpus && !gpus->empty() && gpus->size() < 4096) {
        job.gpus_allocated = static_cast<unsigned>(split(*gpus, ',').size());
    }
    return job;
}

/// The policy a step runs under: without config= in plugstack.conf a missing default file means
/// built-in defaults; a policy the admin named must exist.
Result<policy::Policy> step_policy(const PluginArgs& args) {
    std::error_code ec;
    if (!args.config_given && !std::filesystem::exists(args.config, ec)) {
        return policy::Policy{};
    }
    auto pol = policy::load_policy_file(args.config);
    if (!pol) {
        return fail(
            Error::invalid_argument("policy " + args.config + ": " + pol.error().message()));
    }
    return pol;
}

/// The node part of the NCCL environment: rules over the policy, the step's inputs (node
/// facts, fabric map, IMEX channel) and the job.
Result<void> export_nccl(SpankApi& api,
                         Logger& log,
                         const policy::Policy& pol,
                         const nccl::JobFacts& job,
                         policy::StepInput& in,
                         const JobOptions& opts) {
    const auto choice = opts.nccl_env.value_or(NcclEnvChoice{});
    if (choice.kind == NcclEnvChoice::Kind::Off) {
        return {};
    }
    for (const auto& n : in.node_notes) {  // the admin's matter, not the job's: slurmd's log only
        log.info(Component::Env, n);
    }
    if (!in.node) {
        return fail(Error::io("node facts of " + job.this_host + ": " +
                              (in.node_error ? in.node_error->to_string() : "not read")));
    }
    auto& node = in.node;
    const fabric::FabricMap* map = in.map ? &*in.map : nullptr;
    std::map<std::string, std::string> user_env;
    for (const auto name : nccl::suspect_user_variables()) {
        if (auto v = api.getenv(name)) {
            user_env.emplace(name, *v);
        }
    }
    auto facts = job;
    if (facts.job_id.empty() && nccl::wants_job_id(pol.nccl, *node, facts)) {
        // R19 on a shared node: the job's own RAS port. Reading the id makes the step its own
        // (not cached); steps on exclusive nodes stay cacheable, so it is read only here.
        if (const auto id = api.job_id(); id != 0) {
            facts.job_id = std::to_string(id);
        }
    }
    facts.nvl_group = opts.nvl_group;
    facts.imex_channel = in.imex.present;
    facts.imex_channel_path = in.imex.path;
    facts.nvlink_problem = in.nvlink_problem.value_or("");
    const auto d = nccl::decide_node_env(pol.nccl, *node, map, facts, choice, user_env);
    plugin_state().read_gids = d.read_gids;
    std::vector<std::string> names;
    for (const auto& c : d.set) {
        auto r = api.setenv(c.name, c.value, c.enforce);
        if (!r) {
            return fail(r.error());
        }
        if (*r == SetEnv::Set) {
            names.push_back(c.name);
            log.verbose(Component::Env,
                        c.name + "=" + c.value + " (" + c.rule + ": " + c.why + ")");
        } else {
            log.warning(Component::Env, c.name + ": your value is kept; switchyard would set '" +
                                            c.value + "' (" + c.rule + ": " + c.why + ")");
        }
    }
    for (const auto& w : d.warnings) {
        log.warning(Component::Env, w);
    }
    if (auto r = api.setenv(kEnvNcclSet, join(names, ","), true); !r) {
        return fail(r.error());
    }
    plugin_state().node = std::move(*node);
    return {};
}

/// Everything user_init does after the basic variables: policy, map, NCCL, plan.
Result<void> step_setup(SpankApi& api,
                        Logger& log,
                        const PluginArgs& args,
                        const JobOptions& opts) {
    const bool nccl = opts.nccl_env.value_or(NcclEnvChoice{}).kind != NcclEnvChoice::Kind::Off;
    if (!nccl && !opts.pipeline_stages) {
        return {};
    }
    auto pol = plugin_state().policy ? Result<policy::Policy>(*plugin_state().policy)
                                     : step_policy(args);  // read in init, else now
    if (!pol) {
        return fail(pol.error());
    }
    const auto job = job_facts(api, pol->nccl);
    auto in = policy::load_step_input(
        *pol, {job.this_host, job.hosts, pol->fabric_map, /*step=*/true, /*node=*/nccl, "", ""});
    for (const auto& n : in.map_notes) {  // the admin's matter, not the job's: slurmd's log only
        log.info(Component::Env, "fabric map: " + n);
    }
    if (in.map_error) {
        log.warning(Component::Env, "fabric map: " + in.map_error->to_string() +
                                        "; rules that need it are skipped");
    }
    if (nccl) {
        if (auto r = export_nccl(api, log, *pol, job, in, opts); !r) {
            return fail(Error::invalid_argument("NCCL environment: " + r.error().message()));
        }
    }
    prepare_plan(api, log, *pol, opts, job, in.map ? &*in.map : nullptr);
    return {};
}

}  // namespace

Result<void> export_var(SpankApi& api,
                        Logger& log,
                        std::string_view name,
                        const std::string& value) {
    auto r = api.setenv(name, value, /*overwrite=*/false);
    if (!r) {
        return fail(r.error());
    }
    if (*r == SetEnv::KeptExisting) {
        log.verbose(Component::Env, std::string(name) + ": kept the value set by the user (" +
                                        "switchyard would set '" + value + "')");
    }
    return {};
}

std::string_view to_string(Context c) {
    switch (c) {
        case Context::Error:
            return "error";
        case Context::Local:
            return "local";
        case Context::Remote:
            return "remote";
        case Context::Allocator:
            return "allocator";
        case Context::Slurmd:
            return "slurmd";
        case Context::JobScript:
            return "job_script";
    }
    return "?";
}

namespace {

/// slurmd: a policy whose health gate is on, on a node whose plugstack.conf does not list the
/// gate's module, gates nothing: said once, in slurmd's log, when it starts.
void check_gate_listed(SpankApi& api, Logger& log, const PluginArgs& args) {
    auto pol = step_policy(args);
    if (pol && pol->health.enabled && !api.gate_loaded()) {
        log.error(Component::Health,
                  "health.enabled is true in " + args.config +
                      ", but plugstack.conf does not list spank_switchyard_gate.so: the health "
                      "gate does not run on this node (add 'required spank_switchyard_gate.so "
                      "config=" +
                      args.config + "')");
    }
}

/// A step's slurmstepd, still root (user_init runs with the user's ids): makes node.cache fresh
/// for this and later steps. Cheap when it is fresh already (its key is a few directory reads).
/// The policy read here serves user_init too.
void refresh_step_cache(SpankApi& api, Logger& log, const PluginArgs& args) {
    auto pol = step_policy(args);
    if (!pol) {
        return;  // user_init says why, under on_error
    }
    const auto node = api.node_name();
    if (!node.empty() && !pol->node_cache.empty()) {
        std::vector<std::string> notes;
        policy::refresh_node_cache(*pol, node, &notes);
        for (const auto& n : notes) {  // the admin's matter: slurmd's log only
            log.info(Component::Plugin, n);
        }
    }
    plugin_state().policy = std::move(*pol);
}

/// user_init's decision: the basic variables, then policy, map, NCCL and plan. `api` notes what
/// it read and set.
int decide_step(RecordingApi& api, Logger& log, const PluginWords& words) {
    const auto args = load_args(log, words);
    if (!args) {
        return -1;
    }
    const int failure = args->on_error == OnError::Warn ? 0 : -1;
    const auto step = api.step_id();
    if (step && *step >= kFirstSpecialStepId) {
        api.not_repeatable();  // the front leaves special steps to the step module
        return 0;
    }
    auto opts = resolve_options(api, *args);
    if (!opts) {
        log.error(Component::Plugin, opts.error().message());
        return failure;
    }
    if (opts->pipeline_stages) {
        api.not_repeatable();  // each task gets its place in the plan
    }
    auto r = export_var(api, log, kEnvVersion, SWITCHYARD_VERSION_STRING);
    if (r && opts->pipeline_stages) {
        r = export_var(api, log, kEnvStages, std::to_string(*opts->pipeline_stages));
    }
    if (!r) {
        log.error(Component::Env, r.error().message());
        return failure;
    }
    if (auto n = step_setup(api, log, *args, *opts); !n) {
        log.error(Component::Env, n.error().message());
        return failure;
    }
    return 0;
}

/// The step cache entry of a decision that can be repeated, or "" (see step_cache.hpp).
std::string step_cache_entry(const RecordingApi& api, const PluginWords& words) {
    const auto& st = plugin_state();
    if (!st.policy) {
        return {};
    }
    const auto* node = st.node ? &*st.node : nullptr;
    if (st.read_gids) {
        return {};  // a RoCE GID table: hundreds of files, read at each step
    }
    const auto files = file_input_lines(st.config, *st.policy, node, api.recorded_node());
    if (files.empty()) {
        return {};
    }
    auto entry = "entry\n" + words_line(words) + api.job_lines() + files + api.set_lines() +
                 (node != nullptr ? affinity_lines(*node) : std::string()) + "end\n";
    return entry.size() <= step_cache::kMaxEntry ? entry : std::string();
}

}  // namespace

namespace hooks {

int init(SpankApi& api, Logger& log, const PluginWords& words) {
    const bool daemon = api.context() == Context::Slurmd;
    const int failure = daemon ? 0 : -1;
    if (daemon) {  // once per slurmd start: which build this node loaded
        log.info(Component::Plugin, kLoadedLine);
    }
    const auto args = load_args(log, words);
    if (!args) {
        return failure;
    }
    plugin_state().config = args->config;  // option callbacks get no spank_t
    if (daemon) {
        check_gate_listed(api, log, *args);
    } else if (api.context() == Context::Remote) {
        refresh_step_cache(api, log, *args);
    }
    return 0;
}

int user_init(SpankApi& outer_api, Logger& outer_log, const PluginWords& words) {
    if (outer_api.context() != Context::Remote) {
        return 0;
    }
    RecordingApi api(outer_api);
    RecordingLogger log(outer_log);
    const int rc = decide_step(api, log, words);
    if (rc == 0 && api.repeatable() && log.quiet()) {
        plugin_state().cache_entry = step_cache_entry(api, words);
    }
    return rc;
}

int task_init(SpankApi& api, Logger& log, const PluginWords& words) {
    if (api.context() != Context::Remote) {
        return 0;
    }
    const auto args = load_args(log, words);
    if (!args) {
        return -1;
    }
    // A pipeline job without a valid plan must not start: fail every task, visibly.
    if (auto r = export_task_plan(api, log); !r) {
        log.error(Component::Plugin, r.error().message());
        return -1;
    }
    if (!plugin_state().node) {
        return 0;  // nothing read in user_init: special step, --nccl-env=off, or no NCCL rules
    }
    std::vector<int> gpus;
    if (auto visible = api.getenv("CUDA_VISIBLE_DEVICES")) {
        for (auto part : split(*visible, ',')) {
            if (auto n = parse_uint(trim(part))) {
                gpus.push_back(static_cast<int>(*n));
            }
        }
    }
    const auto choice = nccl::decide_cpu_affinity(*plugin_state().node, api.task_cpus(), gpus);
    if (!choice) {
        return 0;
    }
    auto r = api.setenv(choice->name, choice->value, false);
    if (r && *r == SetEnv::Set) {
        const auto set = api.getenv(kEnvNcclSet).value_or("");
        r = api.setenv(kEnvNcclSet, set.empty() ? choice->name : set + "," + choice->name, true);
        log.warning(Component::Env, choice->name + "=1: " + choice->why);
    }
    if (!r) {
        log.error(Component::Env, r.error().message());
        return args->on_error == OnError::Warn ? 0 : -1;
    }
    return 0;
}

int job_prolog(SpankApi& api, Logger& log, const PluginWords& words, NodeControl& control) {
    const auto args = load_args(log, words);
    if (!args) {
        return 0;
    }
    auto pol = step_policy(*args);
    if (!pol) {
        log.error(Component::Health, "health gate skipped: " + pol.error().message());
        return 0;
    }
    const auto node = api.node_name();
    if (node.empty()) {
        log.error(Component::Health, "health gate skipped: SLURMD_NODENAME is not set");
        return 0;
    }
    if (pol->health.enabled) {
        const int rc = run_health_gate(*pol, node, api.job_partition(), control, log,
                                       static_cast<double>(std::time(nullptr)));
        if (rc != 0) {
            return rc;  // the job is requeued already: nothing to measure
        }
    } else if (!pol->node_cache.empty()) {  // the steps' node facts, refreshed
        std::vector<std::string> notes;
        policy::refresh_node_cache(*pol, node, &notes);
        for (const auto& n : notes) {
            log.warning(Component::Plugin, n);
        }
    }
    std::error_code ec;
    const bool have_config = args->config_given || std::filesystem::exists(args->config, ec);
    return run_preflight_gate(preflight_launch(*pol, have_config ? args->config : "", node, api),
                              node, log);
}

int exit(SpankApi& /*api*/, Logger& /*log*/, const PluginWords& /*words*/) {
    release_plugin_state();
    return 0;
}

int option(int val, const char* optarg, int remote, Logger& log, const PluginWords& words) {
    if (plugin_state().config.empty()) {
        // A client, where init ran in the front only: config= from the plugstack words.
        const auto args = load_args(log, words);
        if (!args) {
            return -1;
        }
        plugin_state().config = args->config;
    }
    const auto id = option_from_val(val);
    if (!id) {
        log.error(Component::Plugin,
                  "option callback for unknown option number " + std::to_string(val));
        return -1;
    }
    const auto& spec = option_spec(*id);
    if (spec.has_arg && !spec.arg_optional && optarg == nullptr) {
        log.error(Component::Plugin, "--" + std::string(spec.name) + ": a value is required");
        return -1;
    }
    JobOptions scratch;
    if (auto r = apply_option(scratch, *id, optarg != nullptr ? optarg : ""); !r) {
        // In the client this is what the user reads; Slurm adds "Invalid --<name> argument".
        log.error(Component::Plugin, r.error().message());
        return -1;
    }
    // A named NCCL profile must exist in the policy and be user-selectable: checked in the
    // client, where the user reads the message (slurmstepd re-checks when it applies it).
    if (*id == OptionId::NcclEnv && remote == 0 && scratch.nccl_env &&
        scratch.nccl_env->kind == NcclEnvChoice::Kind::Profile && !plugin_state().config.empty()) {
        auto pol = policy::load_policy_file(plugin_state().config);
        if (!pol) {
            log.error(Component::Plugin, "--nccl-env=" + scratch.nccl_env->profile +
                                             ": cannot check it against " + plugin_state().config +
                                             ": " + pol.error().message());
            return -1;
        }
        if (auto why = nccl::check_user_profile(pol->nccl, scratch.nccl_env->profile)) {
            log.error(Component::Plugin, *why);
            return -1;
        }
    }
    return 0;
}

}  // namespace hooks
}  // namespace switchyard::spank
