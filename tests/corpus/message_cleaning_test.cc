// Each cleaning rule of software text on hand-written cases, including the pitfalls CORPUS.md
// records (inline tags splitting words, accelerators placed differently on the two sides).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "corpus/message_cleaning.h"
#include "corpus/software_text.h"

using namespace pmt::corpus;

TEST_CASE("markup: inline tags go without a space, block tags leave one, entities are decoded") {
  CHECK(strip_markup("<emph>Tool</emph>s") == "Tools");
  CHECK(strip_markup("Click <b>Save</b>.") == "Click Save.");
  CHECK(strip_markup("First<br/>second") == "First second");
  CHECK(strip_markup("<p>One</p><p>Two</p>") == " One  Two ");
  CHECK(strip_markup("<span foreground=\"red\">Error</span>") == "Error");
  CHECK(strip_markup("a &lt;b&gt; c &amp; d &quot;e&quot; &#233; &#xE9;") == "a <b> c & d \"e\" \u00e9 \u00e9");
  CHECK(strip_markup("x < y and y > z") == "x < y and y > z");  // not tags
  CHECK(strip_markup("<none>") == "");                           // looks like a tag: removed
  CHECK(strip_markup("3 <5") == "3 <5");
  CHECK(strip_markup("AT&T &unknown; &") == "AT&T &unknown; &");
}

TEST_CASE("accelerators: one marker is removed, several are identifiers") {
  CHECK(strip_accelerators("_File") == "File");
  CHECK(strip_accelerators("Re_do") == "Redo");
  CHECK(strip_accelerators("~Open...") == "Open...");
  CHECK(strip_accelerators("&Save") == "Save");
  CHECK(strip_accelerators("Guardar (_S)") == "Guardar");
  CHECK(strip_accelerators("_Abrir ~Guardar") == "Abrir Guardar");
  CHECK(strip_accelerators("file_name_max") == "file_name_max");
  CHECK(strip_accelerators("Tom && Jerry") == "Tom && Jerry");
  CHECK(strip_accelerators("a &amp; b") == "a &amp; b");
  CHECK(strip_accelerators("_\u00c1rbol") == "\u00c1rbol");
  CHECK(strip_accelerators("a_") == "a_");
}

TEST_CASE("whitespace: runs become one space, ends are trimmed") {
  CHECK(collapse_whitespace("  a \n\t b\u00a0\u00a0c  ") == "a b c");
  CHECK(collapse_whitespace("\n") == "");
}

TEST_CASE("placeholders are found in every notation and compared as multisets") {
  using V = std::vector<std::string>;
  CHECK(placeholders("Copy %s to %d places") == V{"%d", "%s"});
  CHECK(placeholders("%1$s and %2$s") == V{"%1$s", "%2$s"});
  CHECK(placeholders("%-10.3lf %lu %%") == V{"%-10.3lf", "%lu"});
  CHECK(placeholders("Page %1 of %2") == V{"%1", "%2"});
  CHECK(placeholders("Welcome to %PRODUCTNAME") == V{"%PRODUCTNAME"});
  CHECK(placeholders("%(name)s is %(age)d") == V{"%(age)d", "%(name)s"});
  CHECK(placeholders("{0} of {count}") == V{"{0}", "{count}"});
  CHECK(placeholders("Hello { $user }") == placeholders("Hola {$user}"));
  CHECK(placeholders("$HOME and ${PATH}") == V{"$HOME", "${PATH}"});
  CHECK(placeholders("50 % done, 100%") == V{});
  CHECK(placeholders("a {b c, d}").empty());
}

TEST_CASE("function words tell English from Spanish") {
  const FunctionWords en = count_function_words("The file is not in the folder");
  CHECK(en.english >= 4);
  CHECK(en.spanish == 0);
  const FunctionWords es = count_function_words("El archivo no está en la carpeta");
  CHECK(es.spanish >= 4);
  CHECK(es.english == 0);
}

TEST_CASE("words, capitals and near-duplicate keys") {
  CHECK(count_words("Save the file, now!") == 4);
  CHECK(count_words("año 2024: ¿qué?") == 3);
  CHECK(to_upper_latin("¿Dónde está la estación, señor?") == "¿DÓNDE ESTÁ LA ESTACIÓN, SEÑOR?");
  CHECK(to_upper_latin("straße ÿ 日本") == "STRAßE ÿ 日本");
  CHECK(near_duplicate_key("Save  File.") == near_duplicate_key("save file"));
  CHECK(near_duplicate_key("Ábrelo") == "ábrelo");
}

TEST_CASE("clean_pair applies the rules in order and counts the one that drops") {
  CleanCounts counts;
  SentencePair out;
  REQUIRE(clean_pair({"_Save the <b>current</b> file", "_Guardar el archivo <b>actual</b>"}, &out, &counts));
  CHECK(out.en == "Save the current file");
  CHECK(out.es == "Guardar el archivo actual");
  CHECK_FALSE(clean_pair({"<b></b>", "x"}, &out, &counts));
  CHECK(counts.empty == 1);
  CHECK_FALSE(clean_pair({"Open", "Abrir"}, &out, &counts));
  CHECK(counts.length == 1);
  CHECK_FALSE(clean_pair({"GNU General Public License", "GNU General Public License"}, &out, &counts));
  CHECK(counts.untranslated == 1);
  CHECK_FALSE(clean_pair({"Copy %s to %s now", "Copiar %s ahora"}, &out, &counts));
  CHECK(counts.placeholders == 1);
  CHECK_FALSE(clean_pair({"The file is not in the folder", "Carpeta: the file is not in the folder"}, &out, &counts));
  CHECK(counts.language == 1);
}

TEST_CASE("the software corpus: duplicates across packages, held-out packages, no leakage") {
  // Find one package name per split (the split is a fixed hash of the name).
  std::string names[kNumSplits];
  for (int i = 0; names[0].empty() || names[1].empty() || names[2].empty(); ++i) {
    const std::string name = "pkg" + std::to_string(i);
    std::string& slot = names[static_cast<int>(split_of_document(name))];
    if (slot.empty()) slot = name;
  }
  const std::vector<RawDocument> docs = {
      {names[2], {{"Open the file now", "Abrir el archivo ahora"}, {"Close the window now", "Cerrar la ventana ahora"}}},
      {names[0], {{"Open the file now", "Abre el archivo ahora"}, {"open the file, now", "abrir el archivo"},
                  {"Print the page now", "Imprimir la página ahora"}}},
      {names[1], {{"Quit the program now", "Salir del programa ahora"}}},
  };
  SeenEnglish seen;
  const SoftwareCorpus c = build_software_corpus(docs, 1, &seen);
  REQUIRE(c.splits[0].size() == 2);  // train comes first: it keeps "Open the file now"
  CHECK(c.splits[0][0].es == "Abre el archivo ahora");
  CHECK(c.splits[0][1].en == "Print the page now");
  CHECK(c.counts.near_duplicate == 1);  // "open the file, now"
  REQUIRE(c.splits[1].size() == 1);
  REQUIRE(c.splits[2].size() == 1);   // the test copy of a train sentence is dropped
  CHECK(c.splits[2][0].en == "Close the window now");
  CHECK(c.counts.duplicate == 1);
  CHECK(c.counts.raw == 6);

  // A later source drops English an earlier one kept, in any split.
  const SoftwareCorpus later = build_software_corpus(
      {{names[0], {{"Close the window now", "Cierre la ventana ahora"}, {"Save the page now", "Guarde la página ahora"}}}},
      1, &seen);
  REQUIRE(later.splits[0].size() == 1);
  CHECK(later.splits[0][0].en == "Save the page now");
  CHECK(later.counts.duplicate == 1);
}

TEST_CASE("the software corpus: more held-out buckets hold out more documents, the same ones first") {
  int held[2][kNumSplits] = {};
  for (int i = 0; i < 5000; ++i) {
    const std::string name = "page" + std::to_string(i);
    const Split one = split_of_document(name), three = split_of_document(name, 3);
    if (one != Split::kTrain) CHECK(three == one);
    ++held[0][static_cast<int>(one)];
    ++held[1][static_cast<int>(three)];
  }
  CHECK(held[0][1] > 50);  // about 100 each (2%)
  CHECK(held[0][1] < 150);
  CHECK(held[1][1] > 3 * held[0][1] - 100);  // about 300 each (6%)
  CHECK(held[1][2] > 3 * held[0][2] - 100);
}
