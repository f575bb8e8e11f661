#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The SPANK plugin inside the real Slurm cluster that the `slurm16` CTest fixture started.
# Usage: slurm_plugin_test.sh RUN CASE
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib/assert.sh
. "$here/lib/assert.sh"
run=${1:?usage: slurm_plugin_test.sh RUN CASE}
case_name=${2:?usage: slurm_plugin_test.sh RUN CASE}
use_cluster "$run"
unset SWITCHYARD_STAGES SWITCHYARD_VERSION
# Never inherit an option from the caller's environment.
unset SLURM_SPANK__SLURM_SPANK_OPTION_switchyard_pipeline_stages

case $case_name in
  help-lists-options)
    run_capture srun --help
    expect_rc 0 "srun --help"
    for o in "--pipeline-stages=N" "--stage-scope=leaf|group|any" "--rank-order=topology|slurm" \
             "--nccl-env=auto|off|PROFILE"; do
      expect_contains "$out" "$o" "srun --help lists $o"
    done
    expect_contains "$out" "--topo-report " "srun --help lists the flag --topo-report"
    grep -qF -- "--topo-report=" <<<"$out" && fail_check "--topo-report is a flag, shown with '='"
    run_capture sbatch --help
    expect_contains "$out" "--pipeline-stages=N" "sbatch --help lists --pipeline-stages"
    run_capture salloc --help
    expect_contains "$out" "--stage-scope=leaf|group|any" "salloc --help lists --stage-scope"
    ;;
  stages-on-all-nodes)
    run_capture srun -N4 --pipeline-stages=2 bash -c 'echo "$SLURMD_NODENAME $SWITCHYARD_STAGES"'
    expect_rc 0 "srun -N4 --pipeline-stages=2"
    expect_eq "$(sort <<<"$out" | awk '{print $1}' | uniq | wc -l)" 4 "four distinct nodes answered"
    expect_eq "$(awk '{print $2}' <<<"$out" | sort -u)" 2 "SWITCHYARD_STAGES=2 on every node"
    run_capture srun -N4 printenv SWITCHYARD_STAGES
    expect_eq "$out" "" "no SWITCHYARD_STAGES without --pipeline-stages"
    ;;
  version-exported)
    run_capture srun -N2 printenv SWITCHYARD_VERSION
    expect_rc 0 "srun printenv SWITCHYARD_VERSION"
    expect_eq "$(sort -u <<<"$out")" "$SWITCHYARD_EXPECTED_VERSION" "SWITCHYARD_VERSION on both nodes"
    ;;
  bad-values-refused)
    for bad in "--pipeline-stages=abc" "--pipeline-stages=0" "--stage-scope=rack" \
               "--rank-order=megatron" "--nccl-env=Bad/Name"; do
      run_capture srun -N1 "$bad" true
      expect_nonzero_rc "srun $bad is refused"
      expect_contains "$err" "srun: error: switchyard: --" "srun $bad names the option in its message"
    done
    run_capture srun -N1 --pipeline-stages=abc true
    expect_contains "$err" "--pipeline-stages: expected a whole number of stages from 1 to 1024, got 'abc'" \
      "the message says what was expected and what was given"
    run_capture sbatch --pipeline-stages=x --wrap true
    expect_nonzero_rc "sbatch --pipeline-stages=x is refused"
    expect_contains "$err" "sbatch: error: switchyard: --pipeline-stages" "sbatch names the option"
    run_capture salloc --stage-scope=rack true
    expect_nonzero_rc "salloc --stage-scope=rack is refused"
    expect_contains "$err" "got 'rack'" "salloc names the value"
    ;;
  user-value-kept)
    run_capture env SWITCHYARD_STAGES=mine srun -N2 --pipeline-stages=2 printenv SWITCHYARD_STAGES
    expect_rc 0 "srun with a user-exported SWITCHYARD_STAGES"
    expect_eq "$(sort -u <<<"$out")" mine "the user's value is not overwritten"
    run_capture env SWITCHYARD_STAGES=mine srun -N1 --export=NONE --pipeline-stages=1 /usr/bin/printenv SWITCHYARD_STAGES
    expect_eq "$out" 1 "with --export=NONE the plugin's value still reaches the task"
    ;;
  env-fallback)
    run_capture env SLURM_SPANK__SLURM_SPANK_OPTION_switchyard_pipeline_stages=3 srun -N3 printenv SWITCHYARD_STAGES
    expect_rc 0 "option given through Slurm's environment fallback"
    expect_eq "$(sort -u <<<"$out")" 3 "SWITCHYARD_STAGES=3 from the environment option"
    ;;
  sbatch-option)
    run_capture sbatch --wait -N2 --pipeline-stages=2 -o "$run/jobs/sbatch-%j.out" --wrap \
      'echo "batch:${SWITCHYARD_STAGES:-unset}"; srun bash -c "echo step:\$SLURMD_NODENAME:\$SWITCHYARD_STAGES"; srun -N1 --pipeline-stages=1 bash -c "echo inner:\$SWITCHYARD_STAGES"'
    expect_rc 0 "sbatch --wait -N2 --pipeline-stages=2"
    jid=$(grep -oE '[0-9]+' <<<"$out" | tail -1)
    job_out=$(cat "$run/jobs/sbatch-$jid.out" 2>/dev/null)
    out=$job_out
    expect_eq "$(grep -c '^step:node[0-9]*:2$' <<<"$job_out")" 2 "both nodes of the batch job's step see 2"
    expect_contains "$job_out" "batch:unset" "the batch script itself gets no stage variables"
    expect_contains "$job_out" "inner:1" "an inner srun's own --pipeline-stages wins over the job's"
    ;;
  bad-plugstack-args)
    bad=$run/etc-bad
    mkdir -p "$bad"
    sed "s|^PlugStackConfig=.*|PlugStackConfig=$bad/plugstack.conf|" "$SLURM_CONF" > "$bad/slurm.conf"
    # Everything slurm.conf names sits next to it (24.11's srun stops when cli_filter.lua is missing).
    (cd "$run/etc" && cp $(ls | grep -vx -e plugstack.conf -e slurm.conf) "$bad/")
    plugin=$(awk '{print $2}' "$run/etc/plugstack.conf")
    echo "required $plugin config=/etc/slurm/switchyard.yaml colour=blue" > "$bad/plugstack.conf"
    # The client reads its plugstack words when a switchyard option is given (without one it
    # loads only the front module; slurmd and slurmstepd read their own plugstack.conf).
    run_capture env SLURM_CONF="$bad/slurm.conf" srun -N1 --pipeline-stages=1 true
    expect_nonzero_rc "srun with an unknown plugstack key and a switchyard option fails"
    expect_contains "$err" "unknown key 'colour'; valid keys: config, stage_scope, rank_order, nccl_env, on_error, step_cache" \
      "the message names the key and the valid ones"
    run_capture env SLURM_CONF="$bad/slurm.conf" srun -N1 true
    expect_rc 0 "srun without switchyard options runs: the client read nothing more than the front"
    ;;
  *)
    echo "unknown case '$case_name'"; exit 2 ;;
esac
finish
