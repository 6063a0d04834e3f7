// LibreOffice help pages: id'd paragraphs and headings, aligned by id, on hand-written pages shaped
// like the HTML of libreoffice-help-en-us / libreoffice-help-es.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "corpus/libreoffice_help.h"
#include "corpus/software_text.h"

using namespace pmt::corpus;

namespace {

const char kEnglish[] = R"(<html><body><p dir="auto">LibreOffice 7.4 Help</p>
<h1 id="hd_id3147291" dir="auto">Load/Save options</h1>
<p id="par_id3146957" class="paragraph" dir="auto"><a name="laden"></a><span class="avis">Specifies general Load/Save settings. </span></p>
<div class="embedded"><p class="embedded" dir="auto">Choose <span id="swlnsys27" class="switchinline"><span hidden="true" class="MAC">LibreOffice - Preferences</span><span hidden="true">Tools - Options</span></span>.</p></div>
<h2 id="hd_id3143284" dir="auto"><a target="_top" href="en-US/text/shared/optionen/01010200.html">General</a></h2>
<p id="par_id3145669" class="paragraph" dir="auto">In the <span class="emph">General</span> section,<br>you can select <p>nested</p> formats.</p>
<p id="par_id5" class="paragraph" dir="auto">Choose <span id="sw5" class="switchinline"><span class="MAC">A</span><span>B</span></span> here.</p>
<p id="bm_module" dir="auto"></p>
</body></html>)";

const char kSpanish[] = R"(<html><body><p dir="auto">Ayuda de LibreOffice 7.4</p>
<h1 id="hd_id3147291" dir="auto">Opciones de Cargar/guardar</h1>
<p id="par_id3146957" class="paragraph" dir="auto"><a name="laden"></a><span class="avis">Especifica la configuración general de carga y guardado. </span></p>
<h2 id="hd_id3143284" dir="auto"><a target="_top" href="es/text/shared/optionen/01010200.html">General</a></h2>
<p id="par_id3145669" class="paragraph" dir="auto">En la sección <span class="emph">General</span>,<br>puede seleccionar <p>anidados</p> formatos.</p>
<p id="par_id5" class="paragraph" dir="auto">Elija <span id="sw5" class="switchinline"><span class="MAC">A</span><span>B</span></span> aquí.</p>
<p id="bm_module" dir="auto"></p>
</body></html>)";

}  // namespace

TEST_CASE("libreoffice: paragraphs and headings with a par_id or hd_id, inner HTML to the matching close") {
  const std::vector<IdParagraph> en = parse_libreoffice_page(kEnglish);
  REQUIRE(en.size() == 5);
  CHECK(en[0].id == "hd_id3147291");
  CHECK(en[0].html == "Load/Save options");
  CHECK(en[1].html == "<a name=\"laden\"></a><span class=\"avis\">Specifies general Load/Save settings. </span>");
  CHECK(en[2].html == "<a target=\"_top\" href=\"en-US/text/shared/optionen/01010200.html\">General</a>");
  CHECK(en[3].html == "In the <span class=\"emph\">General</span> section,<br>you can select <p>nested</p> formats.");
  CHECK(en[4].id == "par_id5");
  CHECK(parse_libreoffice_page("<p id=\"par_id1\">never closed").empty());
}

TEST_CASE("libreoffice: pages align by id; system-specific variants are left out; clean_pair strips the HTML") {
  std::vector<SentencePair> pairs;
  int64_t switched = 0;
  REQUIRE(align_libreoffice_paragraphs(parse_libreoffice_page(kEnglish), parse_libreoffice_page(kSpanish), &pairs,
                                       &switched));
  CHECK(switched == 1);
  REQUIRE(pairs.size() == 4);
  SentencePair clean;
  CleanCounts counts;
  REQUIRE(clean_pair(pairs[3], &clean, &counts));
  CHECK(clean.en == "In the General section, you can select nested formats.");
  CHECK(clean.es == "En la sección General, puede seleccionar anidados formatos.");

  // A page whose ids differ (a paragraph missing from the translation) gives nothing.
  std::vector<IdParagraph> es = parse_libreoffice_page(kSpanish);
  es.erase(es.begin() + 1);
  pairs.clear();
  CHECK(!align_libreoffice_paragraphs(parse_libreoffice_page(kEnglish), es, &pairs, &switched));
  CHECK(pairs.empty());
}
