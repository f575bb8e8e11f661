// SPDX-License-Identifier: Apache-2.0
// jemalloc's build-time options for the executables that allocate with it (SwitchyardMalloc.cmake).
// thp:always: jemalloc asks for transparent huge pages on its arenas (madvise(MADV_HUGEPAGE);
// Debian's kernels default to THP "madvise"). `discover --lldp` at 100k hosts x 8 rails touched
// 180k fresh 4 KiB pages, each a page fault (on a VM a trap to the hypervisor too); with huge
// pages 5k, and the run is about a fifth shorter (design.md, "Ethernet fabrics from LLDP").
// Peak memory grows by the unused tails of the 2 MiB pages (545 -> 572 MiB there). MALLOC_CONF
// in the environment still overrides it.

// jemalloc reads this symbol by name at its first allocation.
extern "C" {
// NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables): jemalloc's interface
const char* malloc_conf = "thp:always";
}
