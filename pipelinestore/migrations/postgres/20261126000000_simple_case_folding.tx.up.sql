-- Search folds text by Unicode's simple case folding (pipeline.Fold): a
-- lower-case letter with a second form (final ς, long ſ, micro µ…) folds to
-- the common one, as its upper case does. Folded copies stored before kept
-- the second forms; they are folded again here. (TestMigration_Fold checks
-- that these letters are exactly those whose folding changed.)
DO $$ BEGIN
    -- In another encoding translate() would work on bytes.
    IF current_setting('server_encoding') = 'UTF8' THEN
        UPDATE jobs SET title_fold = translate(title_fold, 'µſͅςϐϑϕϖϰϱϵᲀᲁᲂᲃᲄᲅᲆᲇᲈẛι', 'μsισβθφπκρεвдосттъѣꙋṡι')
        WHERE title_fold ~ '[µſͅςϐϑϕϖϰϱϵᲀᲁᲂᲃᲄᲅᲆᲇᲈẛι]';
    END IF;
END $$;
--bun:split
DO $$ BEGIN
    -- In another encoding translate() would work on bytes.
    IF current_setting('server_encoding') = 'UTF8' THEN
        UPDATE candidates SET name_fold = translate(name_fold, 'µſͅςϐϑϕϖϰϱϵᲀᲁᲂᲃᲄᲅᲆᲇᲈẛι', 'μsισβθφπκρεвдосттъѣꙋṡι'),
            email_fold = translate(email_fold, 'µſͅςϐϑϕϖϰϱϵᲀᲁᲂᲃᲄᲅᲆᲇᲈẛι', 'μsισβθφπκρεвдосттъѣꙋṡι')
        WHERE name_fold ~ '[µſͅςϐϑϕϖϰϱϵᲀᲁᲂᲃᲄᲅᲆᲇᲈẛι]' OR email_fold ~ '[µſͅςϐϑϕϖϰϱϵᲀᲁᲂᲃᲄᲅᲆᲇᲈẛι]';
    END IF;
END $$;
