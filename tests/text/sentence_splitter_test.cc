// The sentence splitter against a hand-made set of tricky cases, each with its expected
// sentences (written by hand, not produced by the splitter).
#include <string>
#include <string_view>
#include <vector>

#include <doctest/doctest.h>

#include "pocketmt/sentence_splitter.h"

namespace pmt {
namespace {

struct Case {
  std::string_view text;
  std::vector<std::string_view> sentences;
  std::string_view language = "en";
};

const Case kCases[] = {
    // Plain end punctuation.
    {"Hello world.", {"Hello world."}},
    {"Hello world. How are you?", {"Hello world.", "How are you?"}},
    {"Stop! Who goes there?", {"Stop!", "Who goes there?"}},
    {"Really?! Yes.", {"Really?!", "Yes."}},
    {"What?? No!!", {"What??", "No!!"}},
    {"One. Two. Three.", {"One.", "Two.", "Three."}},
    {"No end punctuation here", {"No end punctuation here"}},
    {"Save your work. Then close the program.", {"Save your work.", "Then close the program."}},
    {"It works.It does not split without a space.", {"It works.It does not split without a space."}},
    {"The end.", {"The end."}},
    {"a. b. c.", {"a. b. c."}},
    {"Is it ok? yes, it is.", {"Is it ok? yes, it is."}},
    {"Yahoo! is a company. Google is another.", {"Yahoo! is a company.", "Google is another."}},
    {"I came. I saw. I conquered.", {"I came.", "I saw.", "I conquered."}},
    {"Done . Next", {"Done .", "Next"}},
    // English abbreviations.
    {"Mr. Smith went to Washington.", {"Mr. Smith went to Washington."}},
    {"Mrs. Jones and Dr. Brown met Prof. Green.", {"Mrs. Jones and Dr. Brown met Prof. Green."}},
    {"Ms. Lee arrived. She was late.", {"Ms. Lee arrived.", "She was late."}},
    {"We met Mr. Smith. He was kind.", {"We met Mr. Smith.", "He was kind."}},
    {"Martin Luther King Jr. was born in Atlanta.", {"Martin Luther King Jr. was born in Atlanta."}},
    {"He lives on St. James Street.", {"He lives on St. James Street."}},
    {"We climbed Mt. Everest. It was cold.", {"We climbed Mt. Everest.", "It was cold."}},
    {"Use a tool, e.g. a hammer.", {"Use a tool, e.g. a hammer."}},
    {"Use a tool, e.g. Hammer or Saw.", {"Use a tool, e.g. Hammer or Saw."}},
    {"Some fruit, i.e. Apples, is cheap.", {"Some fruit, i.e. Apples, is cheap."}},
    {"Red vs. Blue is a show.", {"Red vs. Blue is a show."}},
    {"See No. 5 on the list.", {"See No. 5 on the list."}},
    {"The answer is no. Maybe later.", {"The answer is no.", "Maybe later."}},
    {"Read p. 12 and pp. 30-35.", {"Read p. 12 and pp. 30-35."}},
    {"See Fig. 3 and Vol. 2.", {"See Fig. 3 and Vol. 2."}},
    {"It was approx. Ten miles away.", {"It was approx. Ten miles away."}},
    {"Smith et al. (2020) disagree.", {"Smith et al. (2020) disagree."}},
    {"Gen. Grant and Col. Lee spoke.", {"Gen. Grant and Col. Lee spoke."}},
    {"Capt. Hook sailed. Peter flew.", {"Capt. Hook sailed.", "Peter flew."}},
    {"The meeting is on Jan. 5 at noon.", {"The meeting is on Jan. 5 at noon."}},
    {"He was born in Jan. The snow was deep.", {"He was born in Jan.", "The snow was deep."}},
    {"Fruits, vegetables, etc. Then came the bread.", {"Fruits, vegetables, etc.", "Then came the bread."}},
    {"Fruits, vegetables, etc. were sold.", {"Fruits, vegetables, etc. were sold."}},
    {"Visit 221B Baker St. London.", {"Visit 221B Baker St. London."}},
    {"Cf. Chapter 2 for details.", {"Cf. Chapter 2 for details."}},
    {"Dr. No. 7 is a film. It is old.", {"Dr. No. 7 is a film.", "It is old."}},
    // Initials and acronyms.
    {"J. R. R. Tolkien wrote it.", {"J. R. R. Tolkien wrote it."}},
    {"John F. Kennedy was president.", {"John F. Kennedy was president."}},
    {"The U.S. Army is large.", {"The U.S. Army is large."}},
    {"She has a Ph.D. In physics.", {"She has a Ph.D. In physics."}},
    {"We left at 5 p.m. The sun was setting.", {"We left at 5 p.m.", "The sun was setting."}},
    {"Open at 9 a.m. Closed on Sundays.", {"Open at 9 a.m.", "Closed on Sundays."}},
    {"It is 9 a.m. now.", {"It is 9 a.m. now."}},
    {"NASA launched it. ESA helped.", {"NASA launched it.", "ESA helped."}},
    {"I like the letter X. It is rare.", {"I like the letter X. It is rare."}},
    // Spanish.
    {"El Sr. García llegó tarde.", {"El Sr. García llegó tarde."}, "es"},
    {"La Sra. López y la Srta. Ruiz hablaron.", {"La Sra. López y la Srta. Ruiz hablaron."}, "es"},
    {"El Dr. Pérez atiende hoy. Mañana no.", {"El Dr. Pérez atiende hoy.", "Mañana no."}, "es"},
    {"Frutas, p. ej. Manzanas y peras.", {"Frutas, p. ej. Manzanas y peras."}, "es"},
    {"Frutas, p. ej. manzanas y peras.", {"Frutas, p. ej. manzanas y peras."}, "es"},
    {"Vive en EE. UU. desde 2010.", {"Vive en EE. UU. desde 2010."}, "es"},
    {"Viajó a EE. UU. El viaje fue largo.", {"Viajó a EE. UU.", "El viaje fue largo."}, "es"},
    {"Ver pág. 4 y núm. 7.", {"Ver pág. 4 y núm. 7."}, "es"},
    {"Dije que no. Luego me fui.", {"Dije que no.", "Luego me fui."}, "es"},
    {"¿Cómo está Ud. hoy? Bien.", {"¿Cómo está Ud. hoy?", "Bien."}, "es"},
    {"Calle Mayor, núm. 3. Madrid.", {"Calle Mayor, núm. 3.", "Madrid."}, "es"},
    {"Escriba a la Avda. Diagonal. Gracias.", {"Escriba a la Avda. Diagonal.", "Gracias."}, "es"},
    {"Lo firmó el Lic. Martínez.", {"Lo firmó el Lic. Martínez."}, "es"},
    {"La cita es el 3 de ene. El lugar, Madrid.", {"La cita es el 3 de ene.", "El lugar, Madrid."}, "es"},
    {"Ver cap. 2. Después, el 3.", {"Ver cap. 2.", "Después, el 3."}, "es"},
    {"Mr. Smith habla.", {"Mr.", "Smith habla."}, "es"},
    {"Sr. Smith speaks.", {"Sr. Smith speaks."}, "en"},
    {"Hola. Adiós.", {"Hola.", "Adiós."}, "es"},
    {"Es aprox. Diez kilómetros.", {"Es aprox. Diez kilómetros."}, "es"},
    {"Vino el Excmo. Sr. Alcalde.", {"Vino el Excmo. Sr. Alcalde."}, "es"},
    // Opening ¿ and ¡.
    {"¿Dónde está la estación? Está allí.", {"¿Dónde está la estación?", "Está allí."}, "es"},
    {"¡Hola! ¿Qué tal?", {"¡Hola!", "¿Qué tal?"}, "es"},
    {"Hola. ¿Vienes?", {"Hola.", "¿Vienes?"}, "es"},
    {"Bien. ¡Vamos!", {"Bien.", "¡Vamos!"}, "es"},
    {"¿Qué? ¿Cómo? ¿Cuándo?", {"¿Qué?", "¿Cómo?", "¿Cuándo?"}, "es"},
    {"¡No! ¡Basta ya!", {"¡No!", "¡Basta ya!"}, "es"},
    {"¿Vienes? no lo sé.", {"¿Vienes? no lo sé."}, "es"},
    {"Ya veo... ¿Y ahora?", {"Ya veo...", "¿Y ahora?"}, "es"},
    {"Dijo: «Hola». ¿Y tú?", {"Dijo: «Hola».", "¿Y tú?"}, "es"},
    {"Fine. ¿Y tú?", {"Fine.", "¿Y tú?"}},
    {"—¿Vienes? —Sí.", {"—¿Vienes?", "—Sí."}, "es"},
    {"—Hola. —Adiós.", {"—Hola.", "—Adiós."}, "es"},
    {"¡Qué bien! ¡Qué mal!", {"¡Qué bien!", "¡Qué mal!"}, "es"},
    {"Es así. ¡Increíble!", {"Es así.", "¡Increíble!"}, "es"},
    {"«¿Qué hora es?» preguntó.", {"«¿Qué hora es?» preguntó."}, "es"},
    // Numbers, decimals, lists.
    {"Pi is 3.14 roughly.", {"Pi is 3.14 roughly."}},
    {"It costs $1,250.50. That is a lot.", {"It costs $1,250.50.", "That is a lot."}},
    {"The file is 1.5 GB. It is big.", {"The file is 1.5 GB.", "It is big."}},
    {"He was born in 1990. 2000 was a good year.", {"He was born in 1990.", "2000 was a good year."}},
    {"1. Open the file. 2. Save it.", {"1. Open the file.", "2. Save it."}},
    {"1. Open the file.", {"1. Open the file."}},
    {"10. Close everything.", {"10. Close everything."}},
    {"IV. The fourth chapter.", {"IV. The fourth chapter."}},
    {"ii. Second item.", {"ii. Second item."}},
    {"b. Then the second.", {"b. Then the second."}},
    {"Step 3. Restart the computer.", {"Step 3.", "Restart the computer."}},
    {"Version 2.0.1 is out. Update now.", {"Version 2.0.1 is out.", "Update now."}},
    {"On 3 March 2024 we paid $1,250. It was late.", {"On 3 March 2024 we paid $1,250.", "It was late."}},
    {"Temperature: -3.5 degrees. Cold.", {"Temperature: -3.5 degrees.", "Cold."}},
    {"Call 555.1234 today.", {"Call 555.1234 today."}},
    {"The score was 3. 4 points were missing.", {"The score was 3.", "4 points were missing."}},
    {"Chapter 12. The Return.", {"Chapter 12.", "The Return."}},
    {"It grew by 5%. Prices rose.", {"It grew by 5%.", "Prices rose."}},
    {"Mix. Then bake.", {"Mix.", "Then bake."}},
    {"Did. He did.", {"Did.", "He did."}},
    // Ellipses.
    {"Wait... What was that?", {"Wait...", "What was that?"}},
    {"Wait… What was that?", {"Wait…", "What was that?"}},
    {"I think... maybe not.", {"I think... maybe not."}},
    {"Well…  no.", {"Well…  no."}},
    {"And so on... The end.", {"And so on...", "The end."}},
    {"He paused.... Then spoke.", {"He paused....", "Then spoke."}},
    {"...and then it ended. Silence.", {"...and then it ended.", "Silence."}},
    {"Hmm?.. Yes.", {"Hmm?..", "Yes."}},
    {"Etc... Etc.", {"Etc...", "Etc."}},
    {"Loading... 50% done.", {"Loading...", "50% done."}},
    // Quotes and brackets.
    {"He said \"Stop.\" Then he left.", {"He said \"Stop.\"", "Then he left."}},
    {"\"Stop!\" he said.", {"\"Stop!\" he said."}},
    {"\"Stop!\" He said it twice.", {"\"Stop!\"", "He said it twice."}},
    {"She asked, \"Why?\" and left.", {"She asked, \"Why?\" and left."}},
    {"He left. \"Why?\" she asked.", {"He left.", "\"Why?\" she asked."}},
    {"It is “good.” Very good.", {"It is “good.”", "Very good."}},
    {"“Hello,” she said. “Come in.”", {"“Hello,” she said.", "“Come in.”"}},
    {"He wrote ‘yes.’ Then ‘no.’", {"He wrote ‘yes.’", "Then ‘no.’"}},
    {"It's John's car. It's red.", {"It's John's car.", "It's red."}},
    {"'Hello.' 'Goodbye.'", {"'Hello.'", "'Goodbye.'"}},
    {"(See below.) The next part follows.", {"(See below.)", "The next part follows."}},
    {"The cat (a tabby) slept. (It was tired.)", {"The cat (a tabby) slept.", "(It was tired.)"}},
    {"Read the manual (p. 4). Then start.", {"Read the manual (p. 4).", "Then start."}},
    {"[Note.] Text follows.", {"[Note.]", "Text follows."}},
    {"Done.) Next.", {"Done.)", "Next."}},
    {"Il a dit «Bonjour.» Puis il est parti.", {"Il a dit «Bonjour.»", "Puis il est parti."}, "fr"},
    {"He said: \"It's over.\" \"No,\" she replied.", {"He said: \"It's over.\"", "\"No,\" she replied."}},
    {"Is it \"done\"? Yes.", {"Is it \"done\"?", "Yes."}},
    {"(Mr. Brown agreed.) Others did not.", {"(Mr. Brown agreed.)", "Others did not."}},
    {"The word is \"end.\" so to speak.", {"The word is \"end.\" so to speak."}},
    {"[1] Smith. [2] Jones.", {"[1] Smith.", "[2] Jones."}},
    {"He said: 'Go.' And we went.", {"He said: 'Go.'", "And we went."}},
    {"Quote: «Fin.» Otro.", {"Quote: «Fin.»", "Otro."}, "es"},
    {"He (Dr. Who) came. We left.", {"He (Dr. Who) came.", "We left."}},
    {"„Ja.“ Nein.", {"„Ja.“ Nein."}, "de"},
    // Whitespace and line layout.
    {"", {}},
    {"   ", {}},
    {"  Leading space. Trailing space.  ", {"Leading space.", "Trailing space."}},
    {"Two  spaces.  Between them.", {"Two  spaces.", "Between them."}},
    {"Tab.\tNext.", {"Tab.", "Next."}},
    {"Line one\nLine two", {"Line one", "Line two"}},
    {"First. Second\nThird", {"First.", "Second", "Third"}},
    {"Windows line.\r\nNext line.", {"Windows line.", "Next line."}},
    {"Para one.\n\nPara two.", {"Para one.", "Para two."}},
    {"No break\u00a0here. Non-breaking space.", {"No break\u00a0here.", "Non-breaking space."}},
    {"Ends.\u00a0Next.", {"Ends.", "Next."}},
    {"\n\n", {}},
    {"Mr.\nSmith", {"Mr.", "Smith"}},
    {"word\n", {"word"}},
    {"a sentence that goes on, and on; and on: without end", {"a sentence that goes on, and on; and on: without end"}},
    // URLs, e-mail, file names, code.
    {"Visit www.example.com. Then log in.", {"Visit www.example.com.", "Then log in."}},
    {"Go to https://example.org/a.b?c=d. It is free.", {"Go to https://example.org/a.b?c=d.", "It is free."}},
    {"Write to info@example.com. We reply fast.", {"Write to info@example.com.", "We reply fast."}},
    {"Open config.txt and edit it.", {"Open config.txt and edit it."}},
    {"Run ./configure. Then make.", {"Run ./configure.", "Then make."}},
    {"Rename file.TXT to file.txt. Done.", {"Rename file.TXT to file.txt.", "Done."}},
    {"Use std::string. It is safe.", {"Use std::string.", "It is safe."}},
    {"Press Ctrl+S. Your file is saved.", {"Press Ctrl+S.", "Your file is saved."}},
    {"Type 'exit'. The shell closes.", {"Type 'exit'.", "The shell closes."}},
    {"Is it v1.2? Check it.", {"Is it v1.2?", "Check it."}},
    // Other scripts and odd text.
    {"Привет. Как дела?", {"Привет.", "Как дела?"}, "ru"},
    {"Γειά. Τι κάνεις;", {"Γειά.", "Τι κάνεις;"}, "el"},
    {"Hello. 你好。", {"Hello.", "你好。"}},
    {"Start. שלום.", {"Start.", "שלום."}},
    {"Über alles. Ärger folgt.", {"Über alles.", "Ärger folgt."}, "de"},
    {"Él vino. Ésta es la casa.", {"Él vino.", "Ésta es la casa."}, "es"},
    {"Łódź is a city. Żubr is a bison.", {"Łódź is a city.", "Żubr is a bison."}},
    {"ok. élan is a word.", {"ok. élan is a word."}},
    {"Bad \xff byte. Next one.", {"Bad \xff byte.", "Next one."}},
    {"Ends with bad byte. \xff", {"Ends with bad byte.", "\xff"}},
    {".", {"."}},
    {"!!!", {"!!!"}},
    {"? A question mark first.", {"?", "A question mark first."}},
    {"A.B.C. Next sentence?", {"A.B.C. Next sentence?"}},
    {"Emoji 😀. Next.", {"Emoji 😀.", "Next."}},
};

TEST_CASE("sentence splitter: hand-made cases") {
  CHECK(std::size(kCases) >= 150);
  std::vector<SentenceSpan> spans;
  for (const Case& c : kCases) {
    CAPTURE(c.text);
    split_sentences(c.text, c.language, &spans);
    std::vector<std::string_view> got;
    for (const SentenceSpan& s : spans) got.push_back(c.text.substr(s.begin, s.end - s.begin));
    CHECK(got == c.sentences);
  }
}

TEST_CASE("sentence splitter: everything between sentences is whitespace") {
  std::vector<SentenceSpan> spans;
  for (const Case& c : kCases) {
    CAPTURE(c.text);
    split_sentences(c.text, c.language, &spans);
    size_t at = 0;
    for (const SentenceSpan& s : spans) {
      REQUIRE(s.begin >= at);
      REQUIRE(s.end > s.begin);
      CHECK(std::string(c.text.substr(at, s.begin - at)).find_first_not_of(" \t\r\n\xc2\xa0") == std::string::npos);
      at = s.end;
    }
    CHECK(std::string(c.text.substr(at)).find_first_not_of(" \t\r\n\xc2\xa0") == std::string::npos);
  }
}

}  // namespace
}  // namespace pmt
