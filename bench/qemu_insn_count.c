/* A QEMU TCG plugin that counts the guest instructions a program executes, for
 * scripts/arm-instructions.sh: loaded by qemu-user with -plugin, it prints
 * "instructions: N" to stderr when the program exits (or writes it to the file given as
 * -plugin ...,out=FILE).
 *
 * Debian ships qemu-user with plugin support but not the plugin header (qemu-plugin.h), so the
 * few entry points used here are declared below from QEMU's documented plugin API (docs/devel/
 * tcg-plugins.rst, API version 1 as in QEMU 7.2). Counting is inline: at translation each
 * translated block gets an "add its instruction count to the counter" op, run every time the
 * block executes, so the count costs no callback per instruction. One counter: the workload
 * runs on one guest thread (pmt-probe -t 1). */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_info_t;
struct qemu_plugin_tb;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 = 0 };

extern void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
                                                  void (*cb)(qemu_plugin_id_t, struct qemu_plugin_tb*));
extern size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb* tb);
extern void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb* tb, enum qemu_plugin_op op, void* ptr,
                                                     uint64_t imm);
extern void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, void (*cb)(qemu_plugin_id_t, void*), void* userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static uint64_t executed;
static char out_path[4096];

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb* tb) {
  (void)id;
  qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &executed, qemu_plugin_tb_n_insns(tb));
}

static void on_exit(qemu_plugin_id_t id, void* userdata) {
  (void)id;
  (void)userdata;
  FILE* f = out_path[0] ? fopen(out_path, "w") : stderr;
  if (f == NULL) {
    fprintf(stderr, "qemu_insn_count: cannot write %s\n", out_path);
    return;
  }
  fprintf(f, "instructions: %" PRIu64 "\n", executed);
  if (f != stderr) fclose(f);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const struct qemu_info_t* info,
                                                               int argc, char** argv) {
  (void)info;
  for (int i = 0; i < argc; ++i) {
    if (strncmp(argv[i], "out=", 4) != 0 || strlen(argv[i] + 4) >= sizeof out_path) {
      fprintf(stderr, "qemu_insn_count: unknown argument '%s' (only out=FILE)\n", argv[i]);
      return -1;
    }
    strcpy(out_path, argv[i] + 4);
  }
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
  qemu_plugin_register_atexit_cb(id, on_exit, NULL);
  return 0;
}
