DROP TABLE invitation_mails;
