#include <doctest/doctest.h>

#include "corpus/rv1909_text.h"

using pmt::corpus::cut_subscription;
using pmt::corpus::recase_chapter_opening;
using pmt::corpus::WordCaseCounts;

TEST_CASE("subscriptions are cut after the last Amén.") {
  CHECK(cut_subscription("sea gloria para siempre. Amén. Fué escrita de Corinto á los Romanos.") ==
        "sea gloria para siempre. Amén.");
  CHECK(cut_subscription("Amén. Amén. Escrita de Roma.") == "Amén. Amén.");
  CHECK(cut_subscription("sin amén") == "sin amén");
}

TEST_CASE("chapter openings in capitals are re-cased") {
  WordCaseCounts counts;
  counts.add_text("y aconteció que Jehová habló, y Jehová dijo; y fué así. Aconteció");
  counts.add_text("JEHOVÁ JEHOVÁ JEHOVÁ");  // words in capitals are not counted
  CHECK(recase_chapter_opening("EN el principio crió Dios", counts) == "En el principio crió Dios");
  CHECK(recase_chapter_opening("Y ACONTECIÓ después", counts) == "Y aconteció después");
  CHECK(recase_chapter_opening("Y JEHOVÁ habló", counts) == "Y Jehová habló");
  // Unseen words default to lower case; the run's first word is always capitalised.
  CHECK(recase_chapter_opening("YO DIJE: Atenderé", counts) == "Yo dije: Atenderé");
  CHECK(recase_chapter_opening("CANCIÓN de canciones", counts) == "Canción de canciones");
  // After a Psalm superscription, and after punctuation.
  CHECK(recase_chapter_opening("Salmo de David. ¡OH Jehová", counts) == "Salmo de David. ¡Oh Jehová");
  // A run followed by another word in capitals is skipped: the acrostic letter stays.
  CHECK(recase_chapter_opening("ALEPH. BIENAVENTURADOS los perfectos", counts) ==
        "ALEPH. Bienaventurados los perfectos");
  // Nothing to do: no capitals, a lone one-letter capital, capitals to the end.
  CHECK(recase_chapter_opening("Y El ángel de Jehová", counts) == "Y El ángel de Jehová");
  CHECK(recase_chapter_opening("ESTE ES JESUS EL REY", counts) == "ESTE ES JESUS EL REY");
}
