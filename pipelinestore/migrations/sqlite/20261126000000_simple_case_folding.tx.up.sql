-- Search folds text by Unicode's simple case folding (pipeline.Fold): a
-- lower-case letter with a second form (final ς, long ſ, micro µ…) folds to
-- the common one, as its upper case does. Folded copies stored before kept
-- the second forms; they are folded again here. (TestMigration_Fold checks
-- that these letters are exactly those whose folding changed.)
UPDATE jobs SET title_fold = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(title_fold, 'µ', 'μ'), 'ſ', 's'), 'ͅ', 'ι'), 'ς', 'σ'), 'ϐ', 'β'), 'ϑ', 'θ'), 'ϕ', 'φ'), 'ϖ', 'π'), 'ϰ', 'κ'), 'ϱ', 'ρ'), 'ϵ', 'ε'), 'ᲀ', 'в'), 'ᲁ', 'д'), 'ᲂ', 'о'), 'ᲃ', 'с'), 'ᲄ', 'т'), 'ᲅ', 'т'), 'ᲆ', 'ъ'), 'ᲇ', 'ѣ'), 'ᲈ', 'ꙋ'), 'ẛ', 'ṡ'), 'ι', 'ι')
WHERE title_fold GLOB '*[µſͅςϐϑϕϖϰϱϵᲀᲁᲂᲃᲄᲅᲆᲇᲈẛι]*';
--bun:split
UPDATE candidates SET name_fold = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(name_fold, 'µ', 'μ'), 'ſ', 's'), 'ͅ', 'ι'), 'ς', 'σ'), 'ϐ', 'β'), 'ϑ', 'θ'), 'ϕ', 'φ'), 'ϖ', 'π'), 'ϰ', 'κ'), 'ϱ', 'ρ'), 'ϵ', 'ε'), 'ᲀ', 'в'), 'ᲁ', 'д'), 'ᲂ', 'о'), 'ᲃ', 'с'), 'ᲄ', 'т'), 'ᲅ', 'т'), 'ᲆ', 'ъ'), 'ᲇ', 'ѣ'), 'ᲈ', 'ꙋ'), 'ẛ', 'ṡ'), 'ι', 'ι'),
    email_fold = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(email_fold, 'µ', 'μ'), 'ſ', 's'), 'ͅ', 'ι'), 'ς', 'σ'), 'ϐ', 'β'), 'ϑ', 'θ'), 'ϕ', 'φ'), 'ϖ', 'π'), 'ϰ', 'κ'), 'ϱ', 'ρ'), 'ϵ', 'ε'), 'ᲀ', 'в'), 'ᲁ', 'д'), 'ᲂ', 'о'), 'ᲃ', 'с'), 'ᲄ', 'т'), 'ᲅ', 'т'), 'ᲆ', 'ъ'), 'ᲇ', 'ѣ'), 'ᲈ', 'ꙋ'), 'ẛ', 'ṡ'), 'ι', 'ι')
WHERE name_fold GLOB '*[µſͅςϐϑϕϖϰϱϵᲀᲁᲂᲃᲄᲅᲆᲇᲈẛι]*' OR email_fold GLOB '*[µſͅςϐϑϕϖϰϱϵᲀᲁᲂᲃᲄᲅᲆᲇᲈẛι]*';
