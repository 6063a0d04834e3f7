/* The smallest use of the C API (pmt.h): load a model, translate the command-line arguments,
 * print each translation with its score.
 *
 *   c_api_example models/en-es.pmt "In the beginning was the Word." "Jesus wept."
 */
#include <stdio.h>

#include "pocketmt/pmt.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s MODEL SENTENCE...\n", argv[0]);
    return 2;
  }
  pmt_load_options options;
  pmt_load_options_init(&options);
  options.max_batch = argc - 2;

  pmt_translator* translator = NULL;
  if (pmt_load(argv[1], &options, &translator) != PMT_OK) {
    fprintf(stderr, "%s\n", pmt_last_error());
    return 2;
  }
  int rc = 0;
  if (pmt_translate(translator, (const char* const*)(argv + 2), NULL, (size_t)(argc - 2), NULL, NULL, NULL) != PMT_OK) {
    fprintf(stderr, "%s\n", pmt_last_error());
    rc = 2;
  } else {
    for (size_t i = 0; i < pmt_result_count(translator); ++i) {
      pmt_result r;
      pmt_get_result(translator, i, &r);
      if (r.status == PMT_OK) {
        printf("%s\t(score %.3f)\n", r.text, r.score);
      } else {
        printf("\n");
        fprintf(stderr, "sentence %zu: %s\n", i + 1, r.error);
        rc = 2;
      }
    }
  }
  pmt_free(translator);
  /* Translations lost to a full disk or a closed pipe are a failure too. */
  const int write_failed = ferror(stdout);
  if (fclose(stdout) != 0 || write_failed) {
    fprintf(stderr, "cannot write the output\n");
    return 1;
  }
  return rc;
}
